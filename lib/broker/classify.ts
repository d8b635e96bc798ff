// Error classification for consumers (seed 000, "Implementation notes"). Permanent errors come from
// the message itself and fail the same way every time, so they are rejected at once, saving
// maxReceives − 1 wasted attempts. Transient errors come from conditions that change, so they are
// retried with backoff. Anything else is unknown: the runtime retries it and the receive count decides.

export type ErrorClass = 'permanent' | 'transient' | 'unknown';

/** Thrown by a handler to dead-letter its message at once, e.g. a business rule that rejects it. */
export class PermanentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

const TRANSIENT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

// fetch (undici) wraps the socket error as `cause`; a short walk finds it without looping on cycles.
const MAX_CAUSE_DEPTH = 5;

export function classifyError(err: unknown): ErrorClass {
  let current = err;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const found = classifyOne(current as Record<string, unknown>);
    if (found !== 'unknown') return found;
    current = (current as { cause?: unknown }).cause;
  }
  return 'unknown';
}

function classifyOne(err: Record<string, unknown>): ErrorClass {
  const name = typeof err.name === 'string' ? err.name : '';
  const code = typeof err.code === 'string' ? err.code : '';
  if (
    err instanceof PermanentError ||
    err instanceof SyntaxError || // JSON.parse and friends: the payload does not parse
    name === 'PermanentError' ||
    name === 'SyntaxError' ||
    name === 'ZodError' ||
    name.includes('Validation') ||
    name.includes('Schema') ||
    name.includes('UnknownMessageType') ||
    code === 'UNKNOWN_MESSAGE_TYPE'
  ) {
    return 'permanent';
  }
  if (
    TRANSIENT_CODES.has(code) ||
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    name.includes('Throttl') || // AWS ThrottlingException and the like
    name.includes('TooManyRequests')
  ) {
    return 'transient';
  }
  const status = httpStatus(err);
  if (status !== undefined && (status >= 500 || status === 429)) return 'transient';
  return 'unknown';
}

/** error.status, error.statusCode or error.response.status, as HTTP clients variously set it. */
function httpStatus(err: Record<string, unknown>): number | undefined {
  const response = err.response;
  const candidates = [err.status, err.statusCode, typeof response === 'object' && response !== null ? (response as Record<string, unknown>).status : undefined];
  for (const candidate of candidates) {
    const status = typeof candidate === 'string' ? Number(candidate) : candidate;
    if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599) return status;
  }
  return undefined;
}

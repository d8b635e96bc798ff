// Where a dead letter's error text lives. Brokers carry none (RabbitMQ's x-death has only a reason),
// so it comes from headers that common consumer frameworks write, or from where a source says: its
// own header names, or JSON paths into the body. Shared by every connector. Without any of it, the
// dead letter's error type is its reason and clusters group by reason only.
import { z } from 'zod';
import { JsonPathTooComplex, parseJsonPath, visitPath } from '@/lib/masking/json-path';

const headerName = z.string().trim().min(1).max(200);
const jsonPath = z
  .string()
  .trim()
  .max(200)
  .refine((p) => {
    try {
      parseJsonPath(p);
      return true;
    } catch {
      return false;
    }
  }, 'a JSON path like $.error.message');

/** A source's own mapping (part of its connection settings); any field may be left out. */
export const errorTextMappingSchema = z
  .object({
    typeHeader: headerName,
    messageHeader: headerName,
    stackHeader: headerName,
    typePath: jsonPath,
    messagePath: jsonPath,
    stackPath: jsonPath,
  })
  .partial()
  .strict();
export type ErrorTextMapping = z.infer<typeof errorTextMappingSchema>;

export interface ErrorText {
  errorType: string | null;
  errorMessage: string | null;
  errorStack: string | null;
  /** Which convention it came from, or null when none applied. */
  from: 'source' | 'spring' | 'masstransit' | 'nservicebus' | null;
}

/** Framework conventions, tried in order (header names compared case-insensitively). */
const FRAMEWORKS = [
  // Spring AMQP's RepublishMessageRecoverer; the exception class is the stack trace's first word.
  { from: 'spring', type: 'x-exception-fqcn', message: 'x-exception-message', stack: 'x-exception-stacktrace' },
  { from: 'masstransit', type: 'MT-Fault-ExceptionType', message: 'MT-Fault-Message', stack: 'MT-Fault-StackTrace' },
  {
    from: 'nservicebus',
    type: 'NServiceBus.ExceptionInfo.ExceptionType',
    message: 'NServiceBus.ExceptionInfo.Message',
    stack: 'NServiceBus.ExceptionInfo.StackTrace',
  },
] as const;

/** Header names the framework conventions read, e.g. to tell a user which ones Triage looks for. */
export const FRAMEWORK_ERROR_HEADERS: readonly string[] = FRAMEWORKS.flatMap((f) => [f.type, f.message, f.stack]);

function text(v: unknown): string | null {
  if (v == null) return null;
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8');
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

function headerLookup(headers: Record<string, unknown>): (name: string | undefined) => string | null {
  // A loop without Object.entries() and one toLowerCase() per key: it runs for every imported message.
  const lower = new Map<string, unknown>();
  for (const k of Object.keys(headers)) {
    const l = k.toLowerCase();
    if (!lower.has(l)) lower.set(l, headers[k]);
  }
  return (name) => (name ? text(lower.get(name.toLowerCase())) : null);
}

/** "java.lang.IllegalStateException: bad" → "java.lang.IllegalStateException". */
function typeFromStack(stack: string | null): string | null {
  const first = stack?.split('\n', 1)[0]?.trim();
  const m = first ? /^([A-Za-z_$][\w$]*(?:[.$][A-Za-z_$][\w$]*)*)(?::|$)/.exec(first) : null;
  return m ? m[1]! : null;
}

function bodyPaths(payload: Uint8Array, mapping: ErrorTextMapping): Pick<ErrorText, 'errorType' | 'errorMessage' | 'errorStack'> | null {
  if (!mapping.typePath && !mapping.messagePath && !mapping.stackPath) return null;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8'));
  } catch {
    return null; // not JSON: nothing to read, never an import failure
  }
  const at = (path: string | undefined) => {
    if (!path) return null;
    let found: unknown;
    try {
      visitPath(body, parseJsonPath(path), (c, k) => {
        found ??= (c as Record<string | number, unknown>)[k];
      });
    } catch (e) {
      // Too deep to walk: no error text from the body, the message is still imported.
      if (e instanceof JsonPathTooComplex) return null;
      throw e;
    }
    return text(found);
  };
  return { errorType: at(mapping.typePath), errorMessage: at(mapping.messagePath), errorStack: at(mapping.stackPath) };
}

/**
 * The error text of one dead letter: the source's own mapping first (headers, then body paths),
 * then the framework conventions. Fields the winning convention lacks stay null.
 */
export function errorTextOf(headers: Record<string, unknown>, payload: Uint8Array, mapping: ErrorTextMapping = {}): ErrorText {
  const header = headerLookup(headers);
  const own = { errorType: header(mapping.typeHeader), errorMessage: header(mapping.messageHeader), errorStack: header(mapping.stackHeader) };
  const body = bodyPaths(payload, mapping);
  const mine = {
    errorType: own.errorType ?? body?.errorType ?? null,
    errorMessage: own.errorMessage ?? body?.errorMessage ?? null,
    errorStack: own.errorStack ?? body?.errorStack ?? null,
  };
  if (mine.errorType || mine.errorMessage || mine.errorStack) return { ...mine, errorType: mine.errorType ?? typeFromStack(mine.errorStack), from: 'source' };
  for (const f of FRAMEWORKS) {
    const found = { errorType: header(f.type), errorMessage: header(f.message), errorStack: header(f.stack) };
    if (found.errorType || found.errorMessage || found.errorStack) {
      return { ...found, errorType: found.errorType ?? typeFromStack(found.errorStack), from: f.from };
    }
  }
  return { errorType: null, errorMessage: null, errorStack: null, from: null };
}

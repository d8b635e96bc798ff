// Error classification: permanent errors are rejected at once, transient ones retried with backoff,
// unknown ones retried until the receive count decides (reference/seeds/000, "Implementation notes").
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PermanentError, classifyError } from '@/lib/broker';

const withCode = (code: string) => Object.assign(new Error(`connect ${code} 10.0.0.7:5432`), { code });
const named = (name: string) => Object.assign(new Error('failed'), { name });

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('permanent', () => {
  it('an explicit PermanentError, or a subclass of it', () => {
    class OrderCancelled extends PermanentError {}
    expect(classifyError(new PermanentError('order already shipped'))).toBe('permanent');
    expect(classifyError(new OrderCancelled('cancelled'))).toBe('permanent');
    expect(classifyError(named('PermanentError'))).toBe('permanent'); // e.g. crossed a process boundary
  });

  it('a payload that does not parse', () => {
    expect(classifyError(thrownBy(() => JSON.parse('{"order":')))).toBe('permanent');
  });

  it('schema and validation errors', () => {
    expect(classifyError(thrownBy(() => z.object({ id: z.string() }).parse({})))).toBe('permanent');
    expect(classifyError(named('ValidationError'))).toBe('permanent');
    expect(classifyError(named('RequestValidationError'))).toBe('permanent');
    expect(classifyError(named('JsonSchemaError'))).toBe('permanent');
  });

  it('unknown message types', () => {
    expect(classifyError(named('UnknownMessageTypeError'))).toBe('permanent');
    expect(classifyError(Object.assign(new Error('no handler for "gift"'), { code: 'UNKNOWN_MESSAGE_TYPE' }))).toBe('permanent');
  });

  it('wins over a transient-looking status on the same error', () => {
    expect(classifyError(Object.assign(named('ValidationError'), { status: 503 }))).toBe('permanent');
  });
});

describe('transient', () => {
  it.each(['ETIMEDOUT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'])('connection error %s', (code) => {
    expect(classifyError(withCode(code))).toBe('transient');
  });

  it('timeouts and aborts', () => {
    expect(classifyError(new DOMException('signal timed out', 'TimeoutError'))).toBe('transient');
    expect(classifyError(new DOMException('aborted', 'AbortError'))).toBe('transient');
    expect(classifyError(named('TimeoutError'))).toBe('transient');
  });

  it('HTTP 5xx and 429, wherever the client puts the status', () => {
    expect(classifyError(Object.assign(new Error('bad gateway'), { status: 502 }))).toBe('transient');
    expect(classifyError(Object.assign(new Error('unavailable'), { statusCode: 503 }))).toBe('transient');
    expect(classifyError(Object.assign(new Error('slow down'), { response: { status: 429 } }))).toBe('transient');
    expect(classifyError(Object.assign(new Error('oops'), { status: '500' }))).toBe('transient');
  });

  it('throttling by name', () => {
    expect(classifyError(named('ThrottlingException'))).toBe('transient');
    expect(classifyError(named('TooManyRequestsException'))).toBe('transient');
  });

  it('a connection error wrapped as the cause, as fetch does', () => {
    expect(classifyError(new TypeError('fetch failed', { cause: withCode('ECONNRESET') }))).toBe('transient');
  });
});

describe('unknown: retried, and the receive count decides', () => {
  it('plain errors, other HTTP statuses, non-errors', () => {
    expect(classifyError(new Error('something odd'))).toBe('unknown');
    expect(classifyError(new TypeError('x is undefined'))).toBe('unknown');
    expect(classifyError(Object.assign(new Error('not found'), { status: 404 }))).toBe('unknown');
    expect(classifyError(Object.assign(new Error('bad request'), { statusCode: 400 }))).toBe('unknown');
    expect(classifyError('a thrown string')).toBe('unknown');
    expect(classifyError(undefined)).toBe('unknown');
    expect(classifyError(null)).toBe('unknown');
  });

  it('stops on a cause cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(classifyError(a)).toBe('unknown');
  });
});

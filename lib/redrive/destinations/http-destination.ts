// The HTTP destination for ingest-fed sources. Receiver contract: the body is the exact payload
// bytes with the original Content-Type; headers Triage-Message-Id, Triage-Dead-Letter-Id,
// Triage-Redrive-Count and Triage-Signature; a 2xx answer means acknowledged, anything else or a
// timeout is a failure (the runner retries with backoff and counts it against the breaker).
import { postOutbound } from '@/lib/outbound/outbound-request';
import { outboundPolicy, resolveOutbound, type OutboundPolicy, type OutboundTarget } from '@/lib/outbound/outbound-url';
import { REDRIVE_HEADERS, signRedrive } from '../signature';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from './index';

export const HTTP_TIMEOUT_MS = 5_000;

export function httpDestination(opts: { url: string; secret: string | null; timeoutMs?: number; policy?: OutboundPolicy }): RedriveDestination {
  const timeoutMs = opts.timeoutMs ?? HTTP_TIMEOUT_MS;
  async function post(target: OutboundTarget, m: OutgoingRedrive, signal: AbortSignal): Promise<DeliveryResult> {
    const headers: Record<string, string> = {
      'content-type': m.contentType ?? 'application/octet-stream',
      [REDRIVE_HEADERS.messageId]: m.messageId,
      [REDRIVE_HEADERS.deadLetterId]: m.deadLetterId.toString(),
      [REDRIVE_HEADERS.redriveCount]: String(m.redriveCount + 1),
    };
    if (opts.secret) headers[REDRIVE_HEADERS.signature] = signRedrive(opts.secret, m.payload, Math.floor(Date.now() / 1000));
    try {
      const { status } = await postOutbound(target, { headers, body: m.payload, timeoutMs, signal });
      return status >= 200 && status < 300 ? { ok: true, acknowledged: true } : { ok: false, error: `HTTP ${status}` };
    } catch (err) {
      const name = err instanceof Error ? err.name : '';
      return {
        ok: false,
        error: name === 'TimeoutError' ? `timeout after ${timeoutMs} ms` : `request failed: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
  }
  return {
    description: `POST ${opts.url}`,
    failures: 'message',
    deliver: async (batch, signal) => {
      // Once per batch: the URL's name may point somewhere internal since it was saved (lib/outbound);
      // the batch goes to the address checked here, whatever the name answers meanwhile.
      const resolved = await resolveOutbound(opts.url, opts.policy ?? outboundPolicy());
      if (!resolved.ok) return batch.map(() => ({ ok: false, error: `refused: ${resolved.problem}` }));
      return Promise.all(batch.map((m) => post(resolved.target, m, signal)));
    },
  };
}

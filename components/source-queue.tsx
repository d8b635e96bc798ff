// A connector source's source queue beside its DLQ (the SLA board and the source page): what waits,
// what is in flight, who consumes, how old the oldest is, and whether the figures are stale. Read
// from the stored reading (lib/connectors/source-queue.ts), never from the broker.
import type { SourceQueueView } from '@/lib/connectors/source-queue-view';
import { formatDuration } from '@/lib/duration';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function SourceQueueFigures({ reading, showQueue = false }: { reading: SourceQueueView | null; showQueue?: boolean }) {
  if (!reading) return <span className="muted">not read yet</span>;
  if (reading.queue === null) {
    return (
      <span className="muted" data-testid="source-queue" title={reading.staleReason ?? undefined}>
        not watched{showQueue && reading.staleReason ? `: ${reading.staleReason}` : ''}
      </span>
    );
  }
  const parts = [`${reading.depth ?? '?'} waiting`];
  if (reading.inFlight !== null) parts.push(`${reading.inFlight} in flight`);
  parts.push(reading.consumers === null ? 'consumers unknown' : plural(reading.consumers, 'consumer'));
  if (reading.oldestAgeSeconds !== null) parts.push(`oldest ${formatDuration(reading.oldestAgeSeconds)}`);
  return (
    <span data-testid="source-queue" data-no-consumer={reading.noConsumer ? 'true' : undefined} data-stale={reading.stale ? 'true' : undefined}>
      {reading.noConsumer ? (
        <>
          <span className="badge bad">no consumer</span>{' '}
        </>
      ) : null}
      {showQueue ? (
        <>
          <code>{reading.queue}</code>:{' '}
        </>
      ) : null}
      {parts.join(' · ')}
      {reading.stale ? (
        <>
          {' '}
          <span className="badge warn" title={reading.staleReason ?? undefined}>
            stale
          </span>
          {showQueue && reading.staleReason ? <span className="muted"> {reading.staleReason}</span> : null}
        </>
      ) : null}
    </span>
  );
}

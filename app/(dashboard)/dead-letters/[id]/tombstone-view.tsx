// What the dead-letter page shows of a dead letter whose month retention dropped: its tombstone
// (lib/deadletters/get-tombstone.ts), so a link from the audit trail says what became of it.
import Link from 'next/link';
import type { DeadLetterTombstoneView } from '@/lib/deadletters/get-tombstone';
import { bytes } from '@/components/format';
import { AuditHistory, DeadLetterTitle, identityRows, Meta } from './meta';

export function TombstoneView({ t }: { t: DeadLetterTombstoneView }) {
  return (
    <>
      <DeadLetterTitle
        messageId={t.messageId}
        status={t.status}
        badges={
          <>
            {' '}
            <span className="badge" data-testid="dropped">
              dropped
            </span>
          </>
        }
      />
      <div className="card" data-testid="tombstone">
        <p>
          Dropped by retention on <strong>{t.droppedAt}</strong>: every dead letter of its partition (its month, or a migrated table&apos;s older months) was
          decided and past retention. Its payload, headers, error text and failure history went with it; this tombstone and the audit trail are what is kept.
        </p>
        <Meta
          rows={[
            ...identityRows(t),
            ['Redrive count', t.redriveCount],
            ['Reason', t.reason],
            ['Error type', t.errorType],
            ['Dead', t.deadAt],
            ['Expired', t.expiresAt],
            [
              'Decided',
              t.decision.decidedAt
                ? `${t.status} by ${t.decision.decidedBy?.email ?? 'system'} at ${t.decision.decidedAt}: “${t.decision.reason ?? ''}”`
                : null,
            ],
            ['Payload', `${bytes(t.payloadSize)}, SHA-256 ${t.sha256}`],
            ['Dropped', t.droppedAt],
          ]}
        />
        {t.clusterId ? (
          <p>
            <Link href={`/clusters/${t.clusterId}`}>Its cluster</Link>
          </p>
        ) : null}
        <AuditHistory history={t.history} />
      </div>
    </>
  );
}

// The SQS retention trap on the source page: a warning when the DLQ keeps messages no longer than
// its source queue, "could not check" when SQS did not answer in time (lib/connectors/sqs/retention-check.ts).
import type { Actor } from '@/lib/auth';
import { sourceRetentionCheck } from '@/lib/connectors/sqs/retention-check';

export async function SqsRetention({ actor, source }: { actor: Actor; source: string }) {
  const check = await sourceRetentionCheck(actor, source);
  if ('error' in check) {
    return (
      <p className="muted" data-testid="retention-check">
        Retention: could not check ({check.error})
      </p>
    );
  }
  return check.warnings.map((w) => (
    <p key={w} className="badge warn" data-testid="retention-warning" style={{ marginTop: 8, whiteSpace: 'normal' }}>
      {w}
    </p>
  ));
}

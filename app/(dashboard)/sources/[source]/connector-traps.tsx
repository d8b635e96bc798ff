// The broker's dead-letter settings checked against the known traps, on the source page: each trap
// with what to change, "could not check" when the broker did not answer in time
// (lib/connectors/trap-check.ts).
import type { Actor } from '@/lib/auth';
import { sourceTrapCheck } from '@/lib/connectors/trap-check';
import { TrapList } from '@/components/trap-list';

export async function ConnectorTraps({ actor, source }: { actor: Actor; source: string }) {
  const check = await sourceTrapCheck(actor, source);
  if ('error' in check) {
    return (
      <p className="muted" data-testid="trap-check">
        Broker settings: could not check ({check.error})
      </p>
    );
  }
  return <TrapList traps={check.traps} />;
}

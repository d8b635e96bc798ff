// The built-in destination: the broker runtime's redrive hook puts each dead letter back on its
// source queue (exact bytes, original headers and message id, redrive count + 1, the dead letter id
// for the outcome signal). The consumer reports acknowledged / dead again later.
import { redriveToSource } from '@/lib/runtime';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from './index';

export function builtinDestination(sourceName: string): RedriveDestination {
  return {
    description: `queue source.${sourceName}`,
    failures: 'infrastructure',
    async deliver(batch: OutgoingRedrive[]): Promise<DeliveryResult[]> {
      try {
        // One round trip for the batch; the same dead letter sent twice while in flight is absorbed by its job id.
        await redriveToSource(sourceName, batch);
        return batch.map(() => ({ ok: true, acknowledged: false }));
      } catch (err) {
        const error = `queue unavailable: ${err instanceof Error ? err.message : String(err)}`;
        return batch.map(() => ({ ok: false, error }));
      }
    },
  };
}

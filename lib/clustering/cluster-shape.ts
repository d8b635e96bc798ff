// Where a new fingerprint's kin live: clusters of the same error type and top frame. The template
// merger only ever merges within such a group (lib/clustering/template-merger.ts), so the product
// stores this key on each cluster, indexed, and the second stage loads one group, not the table.
// Not split by token count: the merger's last step lets a mask span several tokens, which joins
// templates of different lengths (on Proxifier-style logs, grouping by length too drops GA from
// 0.98 to 0.50).
import { createHash } from 'node:crypto';

/** md5 of error type, \x01, top frame label: the same value the migration computes in SQL. */
export function clusterShape(errorType: string | null, topFrame: string | null): string {
  return createHash('md5')
    .update(`${errorType ?? ''}\u0001${topFrame ?? ''}`)
    .digest('hex');
}

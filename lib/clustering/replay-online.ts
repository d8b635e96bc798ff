// The write path's clustering, in memory: errors arrive one at a time, each is fingerprinted, a new
// fingerprint becomes a cluster and the second stage runs over its shape's most recently seen kin
// (MAX_KIN), folding the families it proves one cause into the oldest cluster; merges stick. The
// merge decision is the write path's own (kinFamilies); what is mirrored here is only the bookkeeping
// the database does there (aliases one hop deep, last_seen, the survivor rule). It answers the
// question a benchmark asks of the product: which cluster does each error end up in when the errors
// arrive as a stream, with no look at what comes later.
import { fingerprint, type ErrorInput } from './fingerprint';
import { kinFamilies, MAX_KIN } from './merge-new-clusters';

interface ReplayCluster {
  id: number;
  template: string;
  /** The cluster this one was folded into (always a root), or itself. */
  root: number;
  lastSeen: number;
}

/** Each error's final cluster (the root its fingerprint's cluster ends under), in order. */
export function replayOnline(errors: Iterable<ErrorInput>): string[] {
  const byKey = new Map<string, ReplayCluster>();
  const byShape = new Map<string, ReplayCluster[]>();
  const all: ReplayCluster[] = [];
  const keys: ReplayCluster[] = [];
  let now = 0;
  for (const error of errors) {
    now++;
    const fp = fingerprint(error);
    let cluster = byKey.get(fp.key);
    if (!cluster) {
      cluster = { id: all.length, template: fp.template, root: all.length, lastSeen: now };
      all.push(cluster);
      byKey.set(fp.key, cluster);
      const shape = `${error.type?.trim() ?? ''}\u0001${fp.topFrame ? `${fp.topFrame.fn}\u0001${fp.topFrame.file}` : ''}`;
      const older = byShape.get(shape) ?? [];
      const kin = [...older]
        .sort((a, b) => b.lastSeen - a.lastSeen || a.id - b.id)
        .slice(0, MAX_KIN)
        .map((c) => ({ template: c.template, root: String(c.root) }));
      kin.push({ template: cluster.template, root: String(cluster.id) });
      older.push(cluster);
      byShape.set(shape, older);
      if (kin.length >= 2) {
        for (const family of kinFamilies(kin, fp.topFrame !== undefined).families) {
          // The survivor is an existing cluster, the oldest (ids grow with first_seen).
          const roots = [...new Set(family.map((k) => Number(k.root)))].sort((a, b) => a - b);
          const survivor = roots[0]!;
          const absorbed = new Set(roots.slice(1));
          for (const c of older) if (absorbed.has(c.root)) c.root = survivor;
        }
      }
    }
    all[cluster.root]!.lastSeen = now;
    keys.push(cluster);
  }
  return keys.map((c) => String(c.root));
}

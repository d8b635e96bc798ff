// The second stage in the product, at ingest: when a batch brings fingerprints never seen before,
// the template merger runs over the templates of their shape (same error type and top frame) and
// every family it proves one cause becomes one cluster. A new fingerprint that joins an existing
// cluster becomes its alias before any dead letter is stored under it; when the new template is the
// evidence that two existing clusters are one (a fourth distinct value proves a column variable),
// the younger is folded into the older (absorbClusters). Merges stick: nothing here ever splits.
//
// Bounded: it runs only for new fingerprints (rare once a system has run a while), over one shape's
// most recent MAX_KIN templates, serialised per shape by an advisory lock so that two batches
// bringing kin at once see each other.
import type { Query } from './absorb-clusters';
import { absorbClusters, recordMerges } from './absorb-clusters';
import { MASK, maskMessage } from './mask-message';
import { TemplateMerger } from './template-merger';

export interface NewCluster {
  id: string;
  template: string;
  shape: string;
  /** The shape's top frame, if it has one: within one code site the merger takes more as evidence. */
  top_frame?: string | null;
}

/** Templates of one shape the merger looks at, most recently seen first. */
export const MAX_KIN = 1_000;
/** First key of the two-key advisory lock on a shape (the second is hashtext(shape)). */
const SHAPE_LOCK = 72_010_005;
/** Stands for the shape's frame in the merger: all kin share it, only its presence matters. */
const SHAPE_FRAME = { fn: '', file: '' };

interface Kin {
  id: string;
  template: string;
  root: string;
}

interface Root {
  id: string;
  fresh: boolean;
  firstSeen: Date;
  shape: string | null;
}

/** Stored templates masked again, memoised: the kin of a shape are read again for each new fingerprint. */
const remasked = new Map<string, string>();
const MAX_REMASKED = 50_000;

function remask(template: string): string {
  let current = remasked.get(template);
  if (current === undefined) {
    if (remasked.size >= MAX_REMASKED) remasked.clear();
    current = maskMessage(template).join(' ');
    remasked.set(template, current);
  }
  return current;
}

/** Serialise second-stage work (and lead merges) on these shapes until the transaction ends. */
export async function lockShapes(q: Query, shapes: Iterable<string>): Promise<void> {
  for (const shape of [...new Set(shapes)].sort()) {
    await q`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(${SHAPE_LOCK}::int, hashtext(${shape}::text))) l`;
  }
}

/** Merge the clusters just created in this transaction with their kin; returns how many were folded. */
export async function mergeNewClusters(q: Query, created: NewCluster[]): Promise<number> {
  const byShape = new Map<string, NewCluster[]>();
  for (const c of created) byShape.set(c.shape, [...(byShape.get(c.shape) ?? []), c]);
  await lockShapes(q, byShape.keys());
  let folded = 0;
  for (const [shape, fresh] of [...byShape].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const freshIds = fresh.map((c) => c.id);
    const older = await q<{ id: string; template: string; root: string }>`
      SELECT id::text, template, coalesce(merged_into_id, id)::text AS root FROM clusters
      WHERE shape = ${shape} AND id <> ALL(${freshIds}::uuid[])
      ORDER BY last_seen DESC, id LIMIT ${MAX_KIN}`;
    if (older.length + fresh.length < 2) continue;
    const framed = fresh.some((c) => c.top_frame != null);
    folded += await mergeShape(q, shape, [...older, ...fresh.map((c) => ({ id: c.id, template: c.template, root: c.id }))], new Set(freshIds), framed);
  }
  return folded;
}

/**
 * The families of one shape's kin that the merger proves one cause and that span more than one root
 * cluster, joined where they share a root, with each template's merged pattern. Pure: the write path
 * and the in-memory replay of it (replay-online.ts) decide merges by this one function.
 */
export function kinFamilies<K extends { template: string; root: string }>(
  kin: K[],
  framed: boolean,
  /** Pairs of roots `a|b` (a < b) a person kept apart by undoing a merge. */
  apart?: Set<string>,
): { families: K[][]; patternOf: Map<string, string> } {
  // One shape is one merger group: the type and the frame itself need not be passed again, only
  // whether there is a frame (a code site is evidence the merger weighs).
  const merger = new TemplateMerger();
  const topFrame = framed ? SHAPE_FRAME : undefined;
  // Stored templates are masked again by today's rules: a template stored before a masking rule
  // changed meets its new form as the same template, so a changed key folds into the old cluster
  // and open clusters are never re-keyed.
  const current = kin.map((k) => remask(k.template));
  const handles = current.map((template) => merger.add(topFrame ? { template, topFrame } : { template }));
  const patternByCurrent = new Map<string, string>();
  for (const c of merger.clusters()) for (const m of c.members) patternByCurrent.set(m.template, c.template);
  const patternOf = new Map<string, string>();
  for (const [i, k] of kin.entries()) patternOf.set(k.template, patternByCurrent.get(current[i]!)!);
  const families = new Map<string, K[]>();
  kin.forEach((k, i) => {
    const key = merger.clusterKeyOf(handles[i]!);
    families.set(key, [...(families.get(key) ?? []), k]);
  });
  const found = [...families.values(), ...learnedFamilies(kin, current)];
  // A merge a person undid stays undone: no family joins two clusters kept apart, neither by itself
  // nor joined with another through a cluster they share.
  const kept = apart ? found.filter((family) => !joinsApart(family, apart)) : found;
  return {
    families: joinSharedRoots(
      kept.filter((family) => new Set(family.map((k) => k.root)).size > 1),
      apart,
    ),
    patternOf,
  };
}

function joinsApart(family: { root: string }[], apart: Set<string>): boolean {
  const roots = [...new Set(family.map((k) => k.root))];
  for (const a of roots) for (const b of roots) if (a < b && apart.has(`${a}|${b}`)) return true;
  return false;
}

/**
 * What merges teach: the templates a cluster holds (a lead merged them, or the merger did) differ
 * in some positions, which are therefore variable for the templates of that shape still to come.
 * Per cluster and width, the positions where its templates differ from its first one become masks
 * (at most as many masks as words remain); a template of another cluster that fits such a pattern
 * joins it, so the next wave of a merged kind lands in the merged cluster even when the merger on
 * its own would want more values.
 */
function learnedFamilies<K extends { template: string; root: string }>(kin: K[], current: string[]): K[][] {
  const byRoot = new Map<string, { tokens: string[]; kin: K }[]>();
  kin.forEach((k, i) => {
    const list = byRoot.get(k.root) ?? [];
    list.push({ tokens: current[i]!.split(' '), kin: k });
    byRoot.set(k.root, list);
  });
  const patterns: { tokens: string[]; root: string; member: K }[] = [];
  for (const [root, members] of byRoot) {
    if (members.length < 2) continue;
    const byWidth = new Map<number, { tokens: string[]; kin: K }[]>();
    for (const m of members) byWidth.set(m.tokens.length, [...(byWidth.get(m.tokens.length) ?? []), m]);
    for (const same of byWidth.values()) {
      if (same.length < 2) continue;
      const first = same[0]!.tokens;
      const tokens = [...first];
      for (const m of same.slice(1))
        m.tokens.forEach((t, j) => {
          if (t !== first[j]) tokens[j] = MASK;
        });
      const masks = tokens.filter((t) => t === MASK).length;
      const learned = tokens.filter((t, j) => t === MASK && first[j] !== MASK).length;
      if (learned === 0 || masks > tokens.length - masks) continue;
      patterns.push({ tokens, root, member: same[0]!.kin });
    }
  }
  if (patterns.length === 0) return [];
  const joined: K[][] = [];
  kin.forEach((k, i) => {
    const tokens = current[i]!.split(' ');
    const host = patterns.find((p) => p.root !== k.root && p.tokens.length === tokens.length && p.tokens.every((t, j) => t === MASK || t === tokens[j]));
    if (host) joined.push([host.member, k]);
  });
  return joined;
}

async function mergeShape(q: Query, shape: string, kin: Kin[], fresh: Set<string>, framed: boolean): Promise<number> {
  const kinRoots = [...new Set(kin.map((k) => k.root))];
  const undone = await q<{ survivor: string; absorbed: string }>`
    SELECT survivor_id::text AS survivor, absorbed_id::text AS absorbed FROM cluster_merges
    WHERE undone_at IS NOT NULL AND survivor_id = ANY(${kinRoots}::uuid[]) AND absorbed_id = ANY(${kinRoots}::uuid[])`;
  const apart = new Set(undone.map((u) => (u.survivor < u.absorbed ? `${u.survivor}|${u.absorbed}` : `${u.absorbed}|${u.survivor}`)));
  const { families: toMerge, patternOf } = kinFamilies(kin, framed, apart);
  if (toMerge.length === 0) return 0;
  const rootIds = [...new Set(toMerge.flatMap((family) => family.map((k) => k.root)))];
  const rows = await q<{ id: string; first_seen: Date; shape: string | null }>`
    SELECT id::text, first_seen, shape FROM clusters WHERE id = ANY(${rootIds}::uuid[])`;
  const roots = new Map<string, Root>(rows.map((r) => [r.id, { id: r.id, fresh: fresh.has(r.id), firstSeen: r.first_seen, shape: r.shape }]));
  let folded = 0;
  for (const family of toMerge) {
    // The survivor is the cluster people have been looking at: an existing one, the oldest.
    const [survivor, ...absorbed] = [...new Set(family.map((k) => k.root))]
      .map((id) => roots.get(id)!)
      .sort((a, b) => Number(a.fresh) - Number(b.fresh) || a.firstSeen.getTime() - b.firstSeen.getTime() || (a.id < b.id ? -1 : 1));
    const ids = absorbed.map((r) => r.id);
    if (absorbed.every((r) => r.fresh)) {
      // Clusters created by this batch hold no dead letter yet: pointing them at the survivor is enough.
      await q`UPDATE clusters SET merged_into_id = ${survivor!.id}::uuid WHERE id = ANY(${ids}::uuid[]) RETURNING id`;
      await recordMerges(q, survivor!.id, ids);
    } else {
      await absorbClusters(q, survivor!.id, ids);
    }
    folded += ids.length;
    const pattern = patternOf.get(family[0]!.template);
    if (pattern !== undefined && survivor!.shape === shape) {
      await q`UPDATE clusters SET pattern = ${pattern} WHERE id = ${survivor!.id}::uuid AND template <> ${pattern} RETURNING id`;
    }
  }
  return folded;
}

/**
 * Families that share a root are one cause: a cluster's kin (its aliases' templates) can fall into
 * two families, and merges stick, so both families fold into one survivor, in one absorb (folding
 * the root a second time would find it merged already).
 */
function joinSharedRoots<K extends { root: string }>(families: K[][], apart?: Set<string>): K[][] {
  const joined: K[][] = [];
  const familyOf = new Map<string, K[]>();
  for (const family of families) {
    const overlapping = [...new Set(family.map((k) => familyOf.get(k.root)).filter((f) => f !== undefined))];
    // Joined with the families it shares a cluster with, it would hold a pair kept apart: left out.
    if (apart && overlapping.length > 0 && joinsApart([...family, ...overlapping.flat()], apart)) continue;
    const into = overlapping[0] ?? [];
    if (overlapping.length === 0) joined.push(into);
    into.push(...family);
    for (const other of overlapping.slice(1)) {
      into.push(...other);
      joined.splice(joined.indexOf(other), 1);
    }
    for (const k of into) familyOf.set(k.root, into);
  }
  return joined;
}

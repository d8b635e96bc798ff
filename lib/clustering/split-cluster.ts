// A person splits a cluster the fingerprint put together: by error type, top frame, a
// header or a JSON path of the payload, after a preview of the parts and their counts. The largest
// part keeps the cluster's id and whatever hangs on it; the other parts are new clusters that link
// back to it (split_from_id). Members only change cluster (moveMembers): no dead letter loses its
// status or history. The split stays split: the cluster that kept the id keeps what it was split by
// (split_by, split-routes.ts), and the write path routes a new arrival with a split-off value to
// its part; the kept values and values never seen count into the cluster that kept the id.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { append } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { db, pg } from '@/lib/db';
import { reasonSchema } from '@/lib/deadletters/decide';
import { unprocessable } from '@/lib/errors';
import { hidesValueAt, MASKED, maskErrorText, sensitivePathsOf } from '@/lib/masking';
import { prismaQuery } from './absorb-clusters';
import { auditPlace } from './archive-cluster';
import { clusterScope, findCluster, sourcesOfAll, type ClusterRow } from './cluster-scope';
import { clusterShape } from './cluster-shape';
import { fieldLabel, parsePayload } from './grouping-rules';
import { lockShapes } from './merge-new-clusters';
import { clusterCounts, moveMembers } from './move-members';
import { splitField, splitValue, valueDigest, type SplitField, type SplitRoute } from './split-routes';

export { splitField, type SplitField } from './split-routes';

export const splitPreviewInput = z.object({ by: splitField }).strict();
export const splitClusterInput = z.object({ by: splitField, reason: reasonSchema }).strict();
export type SplitClusterInput = z.input<typeof splitClusterInput>;

/** Members a split reads and moves in one transaction; a bigger cluster is split with a grouping rule and its re-application. */
export const MAX_SPLIT_MEMBERS = 50_000;
/** Parts a split may make: beyond this the field is an id, not a cause. */
export const MAX_SPLIT_PARTS = 50;
const CHUNK = 2_000;
const TRANSACTION_TIMEOUT_MS = 5 * 60_000;

export const SplitPart = z.object({
  value: z.string().describe("The field's value of this part's members"),
  count: z.int(),
  openCount: z.int(),
  keepsId: z.boolean().describe("The largest part keeps the cluster's id"),
  clusterId: z.uuid().optional().describe("After a split: the part's cluster (the others link back with splitFromId)"),
});
export type SplitPart = z.infer<typeof SplitPart>;

export const SplitPreview = z.object({ clusterId: z.uuid(), by: z.string(), total: z.int(), parts: z.array(SplitPart) });
export type SplitPreview = z.infer<typeof SplitPreview>;

const labelOf = (by: SplitField) => (by.field === 'errorType' ? 'error type' : by.field === 'topFrame' ? 'top frame' : fieldLabel(by));

interface Member {
  id: bigint;
  status: string;
  error_type: string | null;
  reason: string;
  error_stack: string | null;
  headers: Record<string, unknown> | null;
  payload: Uint8Array | null;
}

const splitValueOf = (by: SplitField, m: Member) => splitValue(by, { ...m, payload: () => (m.payload ? parsePayload(m.payload) : undefined) });

/** Every member grouped by the field's value, largest part first (ties: by value, so the choice is stable). */
async function partsOf(cluster: ClusterRow, by: SplitField): Promise<{ parts: (SplitPart & { ids: bigint[] })[]; total: number }> {
  const sql = pg();
  const groups = new Map<string, SplitPart & { ids: bigint[] }>();
  let total = 0;
  const withPayload = by.field === 'payload';
  for (let after = 0n; ; ) {
    const rows = await sql<Member[]>`
      SELECT id, status, error_type, reason, error_stack, headers, ${withPayload ? sql`payload` : sql`NULL::bytea AS payload`}
      FROM dead_letters WHERE cluster_id = ${cluster.id}::uuid AND id > ${after.toString()}::bigint ORDER BY id LIMIT ${CHUNK}`;
    for (const m of rows) {
      const value = splitValueOf(by, m);
      let g = groups.get(value);
      if (!g) groups.set(value, (g = { value, count: 0, openCount: 0, keepsId: false, ids: [] }));
      g.count++;
      if (m.status === 'open') g.openCount++;
      g.ids.push(BigInt(m.id));
    }
    total += rows.length;
    if (total > MAX_SPLIT_MEMBERS) {
      throw unprocessable(
        `This cluster holds more than ${MAX_SPLIT_MEMBERS.toLocaleString('en')} dead letters: add a grouping rule to its source and re-apply it`,
        {
          limit: MAX_SPLIT_MEMBERS,
        },
      );
    }
    if (rows.length < CHUNK) break;
    after = BigInt(rows[rows.length - 1]!.id);
  }
  const parts = [...groups.values()].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
  if (parts[0]) parts[0].keepsId = true;
  return { parts, total };
}

/**
 * How a part's value is shown (the preview, the clusters' "grouped by", the audit event): a header
 * or payload value goes through the masking every reader applies, the sources' sensitive paths
 * first (a path under one is hidden whole), then the detectors. Error types and frames are code.
 */
async function shownValues(cluster: ClusterRow, by: SplitField): Promise<(value: string) => string> {
  if (by.field !== 'payload' && by.field !== 'header') return (v) => v;
  if (by.field === 'payload') {
    const rows = await pg()<{ paths: unknown }[]>`
      SELECT s.sensitive_paths AS paths FROM cluster_sources cs JOIN sources s ON s.id = cs.source_id WHERE cs.cluster_id = ${cluster.id}::uuid`;
    const paths = rows.flatMap((r) => sensitivePathsOf(r.paths));
    if (hidesValueAt(by.path, paths)) return () => MASKED;
  }
  return (v) => maskErrorText(v) ?? v;
}

/** What a split would make: the parts and their counts, without changing anything. */
export async function previewSplit(actor: Principal, id: string, input: z.input<typeof splitPreviewInput>): Promise<SplitPreview> {
  authorize(actor, 'clusters.split');
  const { by } = splitPreviewInput.parse(input);
  const scope = await clusterScope(actor, 'clusters.split');
  const cluster = await findCluster(id, scope);
  const { parts, total } = await partsOf(cluster, by);
  const shown = await shownValues(cluster, by);
  return { clusterId: cluster.id, by: labelOf(by), total, parts: parts.map(({ ids: _ids, ...p }) => ({ ...p, value: shown(p.value) })) };
}

export async function splitCluster(actor: Principal, id: string, input: SplitClusterInput): Promise<SplitPreview> {
  authorize(actor, 'clusters.split');
  const { by, reason } = splitClusterInput.parse(input);
  const scope = await clusterScope(actor, 'clusters.split');
  const cluster = await findCluster(id, scope);
  const sources = await sourcesOfAll(scope, [cluster], 'split');
  return db().$transaction(
    async (tx) => {
      const q = prismaQuery(tx);
      // The second stage merges under these locks; a split must not cross it.
      if (cluster.shape) await lockShapes(q, [cluster.shape]);
      // Read under the lock: members that arrived since a preview are split too.
      const { parts, total } = await partsOf(cluster, by);
      if (parts.length < 2) throw unprocessable(`Every dead letter of this cluster has the same ${labelOf(by)}: nothing to split`);
      if (parts.length > MAX_SPLIT_PARTS) {
        throw unprocessable(`${parts.length} different values of ${labelOf(by)}: a split makes at most ${MAX_SPLIT_PARTS} clusters`, {
          limit: MAX_SPLIT_PARTS,
        });
      }
      const before = await clusterCounts(q, [cluster.id]);
      const [self] = await q<{ grouped_by: string | null }>`
        SELECT grouped_by FROM clusters WHERE id = ${cluster.id}::uuid`;
      const label = labelOf(by);
      const shown = await shownValues(cluster, by);
      const tag = (value: string) => (self?.grouped_by ? `${self.grouped_by}, ${label}=${shown(value)}` : `${label}=${shown(value)}`);
      const [keeper, ...others] = parts;
      keeper!.clusterId = cluster.id;
      await q`UPDATE clusters SET grouped_by = ${tag(keeper!.value)} WHERE id = ${cluster.id}::uuid RETURNING id`;
      let moved = 0;
      for (const part of others) {
        const partId = randomUUID();
        const errorType = by.field === 'errorType' ? part.value : cluster.errorType;
        const topFrame = by.field === 'topFrame' ? part.value : cluster.topFrame;
        // A shape of its own: the template merger never folds a part back into the cluster it left.
        await q`
          INSERT INTO clusters (id, fingerprint, template, pattern, error_type, top_frame, shape, grouped_by, split_from_id, first_seen, last_seen)
          VALUES (${partId}::uuid, ${`split-${partId}`}, ${cluster.template}, ${cluster.pattern}, ${errorType}, ${topFrame},
                  ${clusterShape(errorType, `${topFrame ?? ''}\u0001split\u0001${partId}`)}, ${tag(part.value)}, ${cluster.id}::uuid,
                  'infinity'::timestamptz, '-infinity'::timestamptz)
          RETURNING id`;
        moved += (await moveMembers(q, part.ids, partId)).members;
        part.clusterId = partId;
      }
      // What later arrivals are routed by: each split-off value to its part (the write path, split-routes.ts).
      const route: SplitRoute = { by, parts: Object.fromEntries(others.map((p) => [valueDigest(p.value), p.clusterId!])) };
      await q`UPDATE clusters SET split_by = coalesce(split_by, '[]'::jsonb) || ${JSON.stringify([route])}::jsonb WHERE id = ${cluster.id}::uuid RETURNING id`;
      const after = await clusterCounts(
        q,
        parts.map((p) => p.clusterId!),
      );
      await append(tx, {
        actor: auditActor(actor),
        action: 'cluster.split',
        targetType: 'cluster',
        targetId: cluster.id,
        ...auditPlace(scope, sources),
        selection: { cluster: cluster.id, by },
        count: moved,
        reason,
        before: { cluster: { id: cluster.id, template: cluster.pattern ?? cluster.template, ...before[cluster.id] } },
        after: { parts: parts.map((p) => ({ id: p.clusterId, value: shown(p.value), keepsId: p.keepsId, ...after[p.clusterId!] })) },
      });
      return { clusterId: cluster.id, by: label, total, parts: parts.map(({ ids: _ids, ...p }) => ({ ...p, value: shown(p.value) })) };
    },
    { timeout: TRANSACTION_TIMEOUT_MS },
  );
}

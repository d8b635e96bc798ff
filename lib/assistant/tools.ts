// The assistant's tools: each a thin call of the lib function its REST route calls, with that
// route's zod schema for input and its view for output (docs/style.md pattern 1), so there is no
// second implementation to drift. Permissions come from the one map (lib/auth/permissions.ts) and
// are checked again inside each lib function. No tool reveals a payload or approves a redrive:
// those stay a person's, on the pages and the API.
import { z } from 'zod';
import { authorize, type Actor, type Permission } from '@/lib/auth';
import { explainAlarm } from '@/lib/alarms/explain-alarm';
import { sourceAlarms } from '@/lib/alarms/list-alarms';
import { archiveCluster, archiveClusterInput } from '@/lib/clustering/archive-cluster';
import { getCluster } from '@/lib/clustering/get-cluster';
import { clusterListQuery, listClusters } from '@/lib/clustering/list-clusters';
import { decideDeadLetter, decisionInput, reasonSchema } from '@/lib/deadletters/decide';
import { getDeadLetter } from '@/lib/deadletters/get-dead-letter';
import { deadLetterListQuery } from '@/lib/deadletters/route-shapes';
import { countDeadLetters, listDeadLetters } from '@/lib/deadletters/list-dead-letters';
import { getRedriveTask, previewRedrive, redriveHistory, startRedrive, startRedriveInput } from '@/lib/redrive';
import { getSlaBoard } from '@/lib/sla/sla-board';

export interface AssistantTool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  /** Checked before the input is read, as the route's guard does; the lib function checks it again. */
  permission: Permission;
  /** A change, audited as the user "via assistant"; reads write nothing. */
  action: boolean;
  input: S;
  run: (actor: Actor, input: z.output<S>) => Promise<unknown>;
}

const tool = <S extends z.ZodType>(t: AssistantTool<S>): AssistantTool => t as unknown as AssistantTool;

// As the routes' path params (pathParams in lib/auth/guard.ts, not imported: the stdio CLI runs
// without Next): strings the lib function resolves, or answers 404.
const id = z.object({ id: z.string().describe('Its id') });
const source = z.object({ source: z.string().describe('The source, by name or id') });
const selection = z.object({ selection: startRedriveInput.shape.selection }).strict();

export const ASSISTANT_TOOLS: AssistantTool[] = [
  tool({
    name: 'search_dead_letters',
    title: 'Search dead letters',
    description:
      'A page of dead letters the user may read, newest first, filtered as GET /api/v1/dead-letters is (source, status, reason, errorType, cluster, q: text in payload and error, from/to). Masked values stay masked; count="true" adds a capped count. Pass nextCursor as cursor for the next page.',
    permission: 'deadletters.read',
    action: false,
    input: deadLetterListQuery,
    run: async (actor, { cursor, limit, count: withCount, ...filters }) => {
      const [page, count] = await Promise.all([
        listDeadLetters(actor, filters, cursor ?? null, { limit }),
        withCount ? countDeadLetters(actor, filters) : undefined,
      ]);
      return count ? { ...page, count } : page;
    },
  }),
  tool({
    name: 'get_dead_letter',
    title: 'Get one dead letter',
    description:
      'One dead letter: metadata, error, failure history, status and decision, masked exactly as the API masks it. The assistant never reveals a masked value: a person reveals it in Triage, with a reason.',
    permission: 'deadletters.read',
    action: false,
    input: id,
    run: (actor, { id }) => getDeadLetter(actor, id, { clear: false }),
  }),
  tool({
    name: 'list_clusters',
    title: 'List clusters',
    description:
      'Clusters of dead letters by cause, newest wave first: template, verdict (outage / outage, errors stopped / poison / unknown), error class, counts, rate per hour and a 24-hour sparkline (the trend), ownership (assignee and status). Filters as GET /api/v1/clusters.',
    permission: 'deadletters.read',
    action: false,
    input: clusterListQuery,
    run: (actor, { cursor, limit, ...filters }) => listClusters(actor, filters, cursor ?? null, { limit }),
  }),
  tool({
    name: 'get_cluster',
    title: 'Get one cluster',
    description:
      'One cluster: its template, what it is grouped by, its verdict, per-source counts, recent distinct sample messages (masked) and the hourly trend over 7 days.',
    permission: 'deadletters.read',
    action: false,
    input: id,
    run: (actor, { id }) => getCluster(actor, id),
  }),
  tool({
    name: 'source_alarms',
    title: "A source's alarms and SLA state",
    description:
      "One source's alarm states (depth, age, rate…; the raised ones first, each with the runbook's hint), its latest transitions, and its SLA state: open dead letters, oldest age, near deadline, breached, expiring soon.",
    permission: 'deadletters.read',
    action: false,
    input: source,
    run: async (actor, { source: ref }) => {
      const { source, states, events } = await sourceAlarms(actor, ref);
      const [sla] = await getSlaBoard(actor, { sourceIds: [source.id] });
      return { source: { id: source.id, name: source.name }, states, events, sla: sla ?? null };
    },
  }),
  tool({
    name: 'explain_alarm',
    title: "Explain a source's alarm",
    description:
      "The runbook's decision for a source right now, from the classification its alarms use: outage (check the downstream, do not redrive), outage with errors stopped (confirm healthy, drain, then redrive rate-limited), poison (sample, fix, then redrive), or a volume-only verdict; with the last hour's error classes and the dominant cluster.",
    permission: 'deadletters.read',
    action: false,
    input: source,
    run: (actor, { source }) => explainAlarm(actor, source),
  }),
  tool({
    name: 'preview_redrive',
    title: 'Preview a redrive',
    description:
      "What a redrive of a selection ({ids}, {cluster}, {filter} or {source}) would cover before it starts: the count, loops to skip, whether it waits for a person's approval, an active task, an arriving outage.",
    permission: 'deadletters.redrive',
    action: false,
    input: selection,
    run: (actor, { selection }) => previewRedrive(actor, selection),
  }),
  tool({
    name: 'get_redrive',
    title: "A redrive's progress",
    description:
      'A redrive task: status (pending_approval waits for a person), counts (sent, acknowledged, dead again, skipped, failed of total), verdict and its audit history.',
    permission: 'deadletters.read',
    action: false,
    input: id,
    run: async (actor, { id }) => {
      const [task, history] = await Promise.all([getRedriveTask(actor, id), redriveHistory(actor, id)]);
      return { ...task, history };
    },
  }),
  tool({
    name: 'start_redrive',
    title: 'Start a redrive',
    description:
      "Start a rate-limited redrive of a selection as the user, with a reason; audited as the user via assistant. Above the source's approval threshold it waits for a person's approval (the assistant never approves). Refused for a cluster classified as an outage: a person confirms the downstream is healthy first.",
    permission: 'deadletters.redrive',
    action: true,
    input: z
      .object({
        selection: startRedriveInput.shape.selection,
        ratePerSecond: startRedriveInput.shape.ratePerSecond,
        canary: startRedriveInput.shape.canary,
        reason: reasonSchema.describe('Why, for the audit trail'),
      })
      .strict(),
    run: async (actor, input) => {
      const task = await startRedrive(actor, input);
      return getRedriveTask(actor, task.id);
    },
  }),
  tool({
    name: 'archive_dead_letter',
    title: 'Archive a dead letter',
    description: 'Archive one open dead letter (resolved on purpose, kept) as the user, with a reason; audited as the user via assistant.',
    permission: 'deadletters.archive',
    action: true,
    input: id.extend(decisionInput.shape).strict(),
    run: (actor, { id, reason }) => decideDeadLetter(actor, 'archive', id, reason),
  }),
  tool({
    name: 'archive_cluster',
    title: 'Archive a cluster',
    description:
      "Archive every open dead letter of a cluster in the user's sources (or of one source), with a reason; one audit event, as the user via assistant.",
    permission: 'deadletters.archive',
    action: true,
    input: id.extend(archiveClusterInput.shape).strict(),
    run: (actor, { id, ...input }) => archiveCluster(actor, id, input),
  }),
];

/** Authorize, parse and run one tool, as its route would. */
export async function runTool(actor: Actor, t: AssistantTool, args: unknown): Promise<unknown> {
  authorize(actor, t.permission);
  return t.run(actor, t.input.parse(args ?? {}));
}

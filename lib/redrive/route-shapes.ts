// HTTP shapes of the redrive routes: the preview's query string, the cap of command bodies (which may be empty).
import { z } from 'zod';
import type { Principal } from '@/lib/auth';
import { AppError } from '@/lib/errors';
import { COMMAND_MAX_BYTES } from '@/lib/request-body';
import { redriveCommandInput, type RedriveCommandInput } from './control-redrive';
import { getRedriveTask, RedriveTaskDetail } from './get-redrive';
import type { RedriveSelectionInput } from './selection';

/**
 * The selection a preview asks about: `selection=<JSON>` (any kind, filters included), or the short
 * forms `ids=1,2,3`, `cluster=<uuid>[&source=<name>]`, `source=<name>`.
 */
export function selectionFromQuery(params: URLSearchParams): RedriveSelectionInput {
  const json = params.get('selection');
  if (json) {
    try {
      return JSON.parse(json) as RedriveSelectionInput;
    } catch {
      throw new AppError('bad_request', 'selection is not valid JSON', { field: 'selection' });
    }
  }
  const ids = params.get('ids');
  const cluster = params.get('cluster');
  const source = params.get('source');
  if (ids)
    return {
      ids: ids
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    };
  if (cluster) return source ? { cluster, source } : { cluster };
  if (source) return { source };
  throw new AppError('bad_request', 'Say what to preview: selection, ids, cluster or source', { field: 'selection' });
}

/** GET /api/v1/redrives/preview's query string, read as selectionFromQuery reads it (a 400 names what is missing). */
export const selectionQuery = z
  .object({
    selection: z.string().optional().describe('The selection as JSON: {"ids":[…]} | {"cluster":"…","source"?:"…"} | {"filter":{…}} | {"source":"…"}'),
    ids: z.string().optional().describe('Short form: dead-letter ids, comma-separated'),
    cluster: z.string().optional().describe('Short form: a cluster id'),
    source: z.string().optional().describe('Short form: a source name (with cluster: that source of the cluster)'),
  })
  .transform((q) => selectionFromQuery(new URLSearchParams(Object.entries(q).filter((kv): kv is [string, string] => kv[1] !== undefined))));

/** What the task commands' route specs share (pause, resume, cancel, approve): each adds its summary. */
export const taskCommandRoute = {
  tags: ['redrives'],
  responses: { 200: { description: 'The task', view: RedriveTaskDetail } },
  errors: [409],
  params: z.object({ id: z.string() }),
  body: redriveCommandInput,
  optionalBody: true,
  maxBytes: COMMAND_MAX_BYTES,
};

/** The task commands' handler (lib/auth/guard.ts familyRoute): run `command`, answer the task as it is now. */
export function answerTask(command: (actor: Principal, id: string, input: RedriveCommandInput) => Promise<unknown>) {
  return async ({ actor, params, body }: { actor: Principal; params: { id: string }; body: RedriveCommandInput }) => {
    await command(actor, params.id, body);
    return Response.json(await getRedriveTask(actor, params.id));
  };
}

/**
 * What the previews of a redrive share (a redrive's, a transform's): tagged redrives, 400 for a
 * malformed selection, 404 for a source or cluster not found. Each adds its words, answer and input.
 */
export const redrivePreviewRoute = { tags: ['redrives'], errors: [400, 404] };

/**
 * What the routes that start a task from a selection share (a redrive, a transform): the task's 201,
 * 400 for a malformed selection, 404 for a source or cluster not found, 409 while the source has an
 * active task; a body of up to 1 MiB. Each adds its summary and description.
 */
export function taskStartRoute<B extends z.ZodType>(body: B, view: z.ZodType) {
  return {
    tags: redrivePreviewRoute.tags,
    responses: { 201: { description: 'The task', view } },
    // The selection's errors, as its preview answers them, and 409.
    errors: [...redrivePreviewRoute.errors, 409],
    body,
    maxBytes: 1 << 20,
  };
}

/**
 * 201 for a task just started (a redrive, a transform, an edit), with its Location: the task as it is
 * now, or `answer` with the task as its last field.
 */
export async function startedTask(actor: Principal, taskId: string, answer?: Record<string, unknown>): Promise<Response> {
  const task = await getRedriveTask(actor, taskId);
  return Response.json(answer ? { ...answer, task } : task, { status: 201, headers: { Location: `/api/v1/redrives/${taskId}` } });
}

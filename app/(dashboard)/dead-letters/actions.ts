'use server';
// Dead-letter server actions: guard (same origin, session, permission), then the same lib/ functions
// the JSON API calls. "Redrive selection" hands the same selection to the start-redrive page.
import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { DECISIONS, decideDeadLetter, decideSelection, previewDecision, type Decision, type SelectionInput } from '@/lib/deadletters/decide';
import { filtersFromSearchParams } from '@/lib/deadletters/filters';
import { revealPayload } from '@/lib/deadletters/reveal-payload';
import { redriveHref } from '../_redrive/redrive-href';

export interface ActionState {
  ok?: string;
  error?: string;
}

const text = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' ? v : '';
};

function failure(e: unknown): ActionState {
  if (e instanceof AppError) return { error: e.message };
  if (e instanceof ZodError) return { error: e.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ') };
  throw e;
}

const decisionOf = (v: string): Decision => {
  if (v !== 'archive' && v !== 'discard') throw new AppError('bad_request', 'Unknown decision');
  return v;
};

/** Archive or discard the dead letter of this page. */
export async function decideAction(_: ActionState, f: FormData): Promise<ActionState> {
  try {
    const decision = decisionOf(text(f, 'decision'));
    const actor = await actionActor(DECISIONS[decision].permission);
    const id = text(f, 'id');
    const r = await decideDeadLetter(actor, decision, id, text(f, 'reason'));
    revalidatePath(`/dead-letters/${id}`);
    return { ok: `Dead letter ${r.status}.` };
  } catch (e) {
    return failure(e);
  }
}

/** Reveal the masked payload of this page (audited), then show it clear for a while. */
export async function revealAction(_: ActionState, f: FormData): Promise<ActionState> {
  const id = text(f, 'id');
  let eventId: string;
  try {
    const actor = await actionActor('payload.reveal');
    eventId = (await revealPayload(actor, id, text(f, 'reason'), 'page')).eventId;
  } catch (e) {
    return failure(e);
  }
  redirect(`/dead-letters/${encodeURIComponent(id)}?reveal=${eventId}`);
}

function selectionOf(f: FormData): SelectionInput {
  if (text(f, 'scope') === 'filter') return { filter: filtersFromSearchParams(new URLSearchParams(text(f, 'filter'))) };
  const ids = f.getAll('ids').filter((v): v is string => typeof v === 'string');
  if (ids.length === 0) throw new AppError('bad_request', 'Select dead letters first, or choose "all matching the filter"');
  return { ids };
}

/**
 * Bulk over the list's selection (ticked rows or the whole filter): preview, archive or discard; or
 * redrive, which opens the start-redrive page on it (that page previews the count before anything starts).
 */
export async function bulkAction(_: ActionState, f: FormData): Promise<ActionState> {
  let redriveTo: string;
  try {
    const [verb, what] = text(f, 'intent').split(':') as [string, string | undefined];
    if (verb === 'redrive') {
      await actionActor('deadletters.redrive');
      redriveTo = redriveHref(selectionOf(f));
    } else return await decideBulk(verb, what, f);
  } catch (e) {
    return failure(e);
  }
  redirect(redriveTo);
}

async function decideBulk(verb: string, what: string | undefined, f: FormData): Promise<ActionState> {
  const decision = decisionOf(what ?? verb);
  const actor = await actionActor(DECISIONS[decision].permission);
  const selection = selectionOf(f);
  if (verb === 'preview') {
    const p = await previewDecision(actor, decision, selection);
    return p.overLimit
      ? { error: `More than ${p.limit.toLocaleString('en')} dead letters match: narrow the filter.` }
      : { ok: `${p.count.toLocaleString('en')} dead letter${p.count === 1 ? '' : 's'} would be ${DECISIONS[decision].to}.` };
  }
  const r = await decideSelection(actor, decision, selection, text(f, 'reason'));
  revalidatePath('/dead-letters');
  return { ok: `${r.count.toLocaleString('en')} dead letter${r.count === 1 ? '' : 's'} ${r.status}.` };
}

'use server';
// Dead-letter server actions: the action client (guard, form, errors), then the same lib/ functions
// the JSON API calls. "Redrive selection" hands the same selection to the start-redrive page.
import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import type { Permission } from '@/lib/auth/permissions';
import { AppError } from '@/lib/errors';
import { deadLetterCount } from '@/lib/deadletters/count-label';
import { DECISIONS, decideDeadLetter, decideSelection, previewDecision, type Decision, type SelectionInput } from '@/lib/deadletters/decide';
import { filtersFromSearchParams } from '@/lib/deadletters/filters';
import { revealPayload, revealSearch } from '@/lib/deadletters/reveal-payload';
import { redriveHref } from '@/components/redrive/redrive-href';

const decisionOf = (v: string): Decision => {
  if (v !== 'archive' && v !== 'discard') throw new AppError('bad_request', 'Unknown decision');
  return v;
};

/** Archive or discard the dead letter of this page; the permission is the decision's. */
export const decideAction = action(
  ({ decision }) => DECISIONS[decisionOf(decision)].permission,
  z.object({ id: form.text, decision: form.text, reason: form.text }),
  async ({ id, decision, reason }, { actor }) => {
    const r = await decideDeadLetter(actor, decisionOf(decision), id, reason);
    revalidatePath(`/dead-letters/${id}`);
    return { message: `Dead letter ${r.status}.` };
  },
);

/** Reveal the masked payload of this page (audited), then show it clear for a while. */
export const revealAction = action('payload.reveal', z.object({ id: form.text, reason: form.text }), async ({ id, reason }, { actor }) => {
  const { eventId } = await revealPayload(actor, id, reason, 'page');
  redirect(`/dead-letters/${encodeURIComponent(id)}?reveal=${eventId}`);
});

/** Search inside masked values for a while (audited), then the same list with the reveal. */
export const searchRevealAction = action('payload.reveal', z.object({ filter: form.text, reason: form.text }), async ({ filter, reason }, { actor }) => {
  const { eventId } = await revealSearch(actor, reason);
  const query = new URLSearchParams(filter);
  query.set('reveal', eventId);
  redirect(`/dead-letters?${query}`);
});

const bulkForm = z.object({ intent: form.text, scope: form.text, filter: form.text, ids: form.many, reason: form.text }).transform(({ intent, ...rest }) => {
  const [verb, what] = intent.split(':') as [string, string | undefined];
  return { verb, what, ...rest };
});

function selectionOf(f: { scope: string; filter: string; ids: string[] }): SelectionInput {
  if (f.scope === 'filter') return { filter: filtersFromSearchParams(new URLSearchParams(f.filter)) };
  if (f.ids.length === 0) throw new AppError('bad_request', 'Select dead letters first, or choose "all matching the filter"');
  return { ids: f.ids };
}

const bulkPermission = ({ verb, what }: { verb: string; what?: string }): Permission =>
  verb === 'redrive' ? 'deadletters.redrive' : DECISIONS[decisionOf(what ?? verb)].permission;

/**
 * Bulk over the list's selection (ticked rows or the whole filter): preview, archive or discard; or
 * redrive, which opens the start-redrive page on it (that page previews the count before anything starts).
 */
export const bulkAction = action(bulkPermission, bulkForm, async (f, { actor }) => {
  if (f.verb === 'redrive') redirect(redriveHref(selectionOf(f)));
  const decision = decisionOf(f.what ?? f.verb);
  const selection = selectionOf(f);
  if (f.verb === 'preview') {
    const p = await previewDecision(actor, decision, selection);
    if (p.overLimit) throw new AppError('unprocessable', `More than ${p.limit.toLocaleString('en')} dead letters match: narrow the filter.`);
    return { message: `${deadLetterCount(p.count)} would be ${DECISIONS[decision].to}.` };
  }
  const r = await decideSelection(actor, decision, selection, f.reason);
  revalidatePath('/dead-letters');
  return { message: `${deadLetterCount(r.count)} ${r.status}.` };
});

'use server';
// Ownership server actions: the action client (guard, form, errors), then lib/ownership, as the
// JSON API does.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import { addClusterNote, updateOwnership, type OwnershipInput } from '@/lib/ownership/ownership';
import { OWNERSHIP_STATUSES } from '@/lib/model/ownership-statuses';

function refresh(id: string) {
  revalidatePath(`/clusters/${id}`);
  revalidatePath('/inbox');
  revalidatePath('/sla');
}

const ownershipForm = z.object({
  clusterId: form.text,
  // Present but blank clears it (null); absent leaves it as it is.
  assignee: z.string().optional(),
  ticketUrl: z.string().optional(),
  status: form.optionalChoice(OWNERSHIP_STATUSES),
  holdUntil: form.optional,
  fixVersion: form.optional,
  note: form.optional,
});

/** Assignee, status, ticket, hold, fix version and an optional note, from the cluster page's form. */
export const updateOwnershipAction = action('clusters.own', ownershipForm, async (f, { actor }) => {
  const input: OwnershipInput = {};
  if (f.assignee !== undefined) input.assignee = f.assignee || null;
  if (f.status) input.status = f.status;
  if (f.ticketUrl !== undefined) input.ticketUrl = f.ticketUrl || null;
  if (f.holdUntil && input.status === 'on_hold') input.holdUntil = f.holdUntil;
  if (f.fixVersion && input.status === 'resolved') input.fixVersion = f.fixVersion;
  if (f.note) input.note = f.note;
  const r = await updateOwnership(actor, f.clusterId, input);
  refresh(r.clusterId);
  return { message: `Saved: ${r.status.replace(/_/g, ' ')}${r.assignee ? `, assigned to ${r.assignee.email}` : ', unassigned'}.` };
});

/** Add a note to the cluster's thread. */
export const addClusterNoteAction = action('clusters.own', z.object({ clusterId: form.text, body: form.text }), async ({ clusterId, body }, { actor }) => {
  await addClusterNote(actor, clusterId, { body });
  refresh(clusterId);
  return { message: 'Note added.' };
});

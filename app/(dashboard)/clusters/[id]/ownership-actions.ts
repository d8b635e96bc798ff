'use server';
// Ownership server actions: guard (same origin, session, permission), then lib/ownership, as the
// JSON API does.
import { revalidatePath } from 'next/cache';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { addClusterNote, updateOwnership, type OwnershipInput } from '@/lib/ownership/ownership';

export interface OwnershipActionState {
  ok?: string;
  error?: string;
}

const text = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' ? v.trim() : '';
};

function failure(e: unknown): OwnershipActionState {
  if (e instanceof AppError) return { error: e.message };
  if (e instanceof ZodError) return { error: e.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ') };
  throw e;
}

function refresh(id: string) {
  revalidatePath(`/clusters/${id}`);
  revalidatePath('/inbox');
  revalidatePath('/sla');
}

/** Assignee, status, ticket, hold, fix version and an optional note, from the cluster page's form. */
export async function updateOwnershipAction(_: OwnershipActionState, f: FormData): Promise<OwnershipActionState> {
  try {
    const actor = await actionActor('clusters.own');
    const id = text(f, 'clusterId');
    const input: OwnershipInput = {};
    if (f.has('assignee')) input.assignee = text(f, 'assignee') || null;
    if (text(f, 'status')) input.status = text(f, 'status') as OwnershipInput['status'];
    if (f.has('ticketUrl')) input.ticketUrl = text(f, 'ticketUrl') || null;
    if (text(f, 'holdUntil') && input.status === 'on_hold') input.holdUntil = text(f, 'holdUntil');
    if (text(f, 'fixVersion') && input.status === 'resolved') input.fixVersion = text(f, 'fixVersion');
    if (text(f, 'note')) input.note = text(f, 'note');
    const r = await updateOwnership(actor, id, input);
    refresh(r.clusterId);
    return { ok: `Saved: ${r.status.replace(/_/g, ' ')}${r.assignee ? `, assigned to ${r.assignee.email}` : ', unassigned'}.` };
  } catch (e) {
    return failure(e);
  }
}

/** Add a note to the cluster's thread. */
export async function addClusterNoteAction(_: OwnershipActionState, f: FormData): Promise<OwnershipActionState> {
  try {
    const actor = await actionActor('clusters.own');
    const id = text(f, 'clusterId');
    await addClusterNote(actor, id, { body: text(f, 'body') });
    refresh(id);
    return { ok: 'Note added.' };
  } catch (e) {
    return failure(e);
  }
}

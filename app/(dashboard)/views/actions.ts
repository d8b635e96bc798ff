'use server';
// Saved-view server actions: guard (same origin, session, permission), then lib/views, as the API.
import { revalidatePath } from 'next/cache';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { createView, deleteView, updateView } from '@/lib/views';

export interface ViewActionState {
  ok?: string;
  error?: string;
}

const text = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' ? v : '';
};

function failure(e: unknown): ViewActionState {
  if (e instanceof AppError) return { error: e.message };
  if (e instanceof ZodError) return { error: e.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ') };
  throw e;
}

/** Save the page's current filters under a name; the nav lists it from the next render. */
export async function saveViewAction(_: ViewActionState, f: FormData): Promise<ViewActionState> {
  try {
    const actor = await actionActor('views.manage');
    const view = await createView(actor, { page: text(f, 'page') as never, name: text(f, 'name'), filters: text(f, 'filters'), shared: f.get('shared') === 'on' });
    revalidatePath('/', 'layout');
    return { ok: `Saved "${view.name}"${view.shared ? ', shared with your team' : ''}.` };
  } catch (e) {
    return failure(e);
  }
}

/** Rename one's own view, and share or unshare it. */
export async function updateViewAction(_: ViewActionState, f: FormData): Promise<ViewActionState> {
  try {
    const actor = await actionActor('views.manage');
    const view = await updateView(actor, text(f, 'id'), { name: text(f, 'name'), shared: f.get('shared') === 'on' });
    revalidatePath('/', 'layout');
    return { ok: `Saved "${view.name}".` };
  } catch (e) {
    return failure(e);
  }
}

export async function deleteViewAction(_: ViewActionState, f: FormData): Promise<ViewActionState> {
  try {
    const actor = await actionActor('views.manage');
    await deleteView(actor, text(f, 'id'));
    revalidatePath('/', 'layout');
    return { ok: 'Deleted.' };
  } catch (e) {
    return failure(e);
  }
}

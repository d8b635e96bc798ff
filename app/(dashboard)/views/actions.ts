'use server';
// Saved-view server actions: the action client (guard, form, errors), then lib/saved-views, as the API.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import { createView, deleteView, updateView } from '@/lib/saved-views';
import { VIEW_PAGES } from '@/lib/saved-views/pages';

// The nav lists the views from the next render.
const refresh = () => revalidatePath('/', 'layout');

/** Save the page's current filters under a name. */
export const saveViewAction = action(
  'views.manage',
  z.object({ page: form.choice(VIEW_PAGES), name: form.text, filters: form.text, shared: form.checkbox }),
  async (input, { actor }) => {
    const view = await createView(actor, input);
    refresh();
    return { message: `Saved "${view.name}"${view.shared ? ', shared with your team' : ''}.` };
  },
);

/** Rename one's own view, and share or unshare it. */
export const updateViewAction = action(
  'views.manage',
  z.object({ id: form.text, name: form.text, shared: form.checkbox }),
  async ({ id, ...input }, { actor }) => {
    const view = await updateView(actor, id, input);
    refresh();
    return { message: `Saved "${view.name}".` };
  },
);

export const deleteViewAction = action('views.manage', z.object({ id: form.text }), async ({ id }, { actor }) => {
  await deleteView(actor, id);
  refresh();
  return { message: 'Deleted.' };
});

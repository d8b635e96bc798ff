// /views/[id] — open a saved view: its page with its filters; a view the user does not see is a 404
import { notFound, redirect } from 'next/navigation';
import { pageActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { getView, type SavedViewView } from '@/lib/saved-views';

export default async function OpenViewPage({ params }: { params: Promise<{ id: string }> }) {
  const actor = await pageActor('views.manage');
  const { id } = await params;
  let view: SavedViewView;
  try {
    view = await getView(actor, id);
  } catch (e) {
    if (e instanceof AppError && e.status === 404) notFound();
    throw e;
  }
  redirect(`${view.href}${view.href.includes('?') ? '&' : '?'}view=${view.id}`);
}

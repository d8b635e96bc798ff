// The name of the saved view a page was opened from (?view=), so a teammate sees whose filters these are.
import type { Actor } from '@/lib/auth';
import { AppError } from '@/lib/errors';
import { getView } from '@/lib/saved-views';

export async function OpenedView({ actor, id }: { actor: Actor; id: string | undefined }) {
  if (!id) return null;
  try {
    const v = await getView(actor, id);
    return (
      <p className="muted" data-testid="opened-view">
        View <strong>{v.name}</strong>
        {v.mine ? '' : ` (shared by ${v.owner})`}
      </p>
    );
  } catch (e) {
    // A view one does not see (or no longer exists) is just a page with those filters.
    if (e instanceof AppError && (e.status === 404 || e.status === 403)) return null;
    throw e;
  }
}

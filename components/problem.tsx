// A filter the page could not apply, announced to screen readers; on the pages that save views, in
// place of the "Save view" form (a view of filters that do not apply is no use).
import { can, type Actor } from '@/lib/auth';
import type { ViewPage } from '@/lib/saved-views/pages';
import { SaveViewForm } from '@/components/save-view-form';

export function Problem({ message }: { message: string }) {
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}

/** The filter problem, else the "Save view" form of `query` for those who may save views. */
export function ProblemOrSaveView({ problem, actor, page, query }: { problem: string | null; actor: Actor; page: ViewPage; query: URLSearchParams }) {
  if (problem) return <Problem message={problem} />;
  return can(actor.role, 'views.manage') ? <SaveViewForm page={page} filters={query.toString()} canShare={!!actor.teamId} /> : null;
}

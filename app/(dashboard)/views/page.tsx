// /views — the user's saved views and those shared with their team: open, rename, share, delete
import Link from 'next/link';
import { DataTable } from '@/components/data-table';
import { pageActor } from '@/lib/auth/guard';
import { listViews, VIEW_PAGE } from '@/lib/saved-views';
import { DeleteViewForm, EditViewForm } from './forms';

export default async function ViewsPage() {
  const actor = await pageActor('views.manage');
  const views = await listViews(actor);
  return (
    <>
      <h1>Saved views</h1>
      <p className="muted">
        Save the filters of the dead-letter list, the inbox or the audit trail with the form on each page. A shared view is seen by your team; only you change
        it.
      </p>
      <DataTable
        testId="views-table"
        rows={views}
        rowKey={(v) => v.id}
        empty="No saved views yet."
        columns={[
          {
            header: 'Name',
            className: 'prose',
            cell: (v) => (
              <>
                <Link href={`/views/${v.id}`}>{v.name}</Link>
                {v.shared ? <span className="badge"> shared</span> : null}
              </>
            ),
          },
          { header: 'Page', cell: (v) => VIEW_PAGE[v.page].label },
          { header: 'Filters', cell: (v) => <code>{v.filters || '(none)'}</code> },
          { header: 'Owner', cell: (v) => (v.mine ? 'you' : v.owner) },
          {
            header: '',
            cell: (v) =>
              v.mine ? (
                <>
                  <EditViewForm id={v.id} name={v.name} shared={v.shared} canShare={!!actor.teamId} />
                  <DeleteViewForm id={v.id} />
                </>
              ) : null,
          },
        ]}
      />
    </>
  );
}

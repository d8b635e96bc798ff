// /views — the user's saved views and those shared with their team: open, rename, share, delete
import Link from 'next/link';
import { pageActor } from '@/lib/auth/guard';
import { listViews, VIEW_PAGE } from '@/lib/views';
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
      <table data-testid="views-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Page</th>
            <th>Filters</th>
            <th>Owner</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {views.length === 0 ? (
            <tr>
              <td colSpan={5} className="muted">
                No saved views yet.
              </td>
            </tr>
          ) : null}
          {views.map((v) => (
            <tr key={v.id}>
              <td className="prose">
                <Link href={`/views/${v.id}`}>{v.name}</Link>
                {v.shared ? <span className="badge"> shared</span> : null}
              </td>
              <td>{VIEW_PAGE[v.page].label}</td>
              <td>
                <code>{v.filters || '(none)'}</code>
              </td>
              <td>{v.mine ? 'you' : v.owner}</td>
              <td>
                {v.mine ? (
                  <>
                    <EditViewForm id={v.id} name={v.name} shared={v.shared} canShare={!!actor.teamId} />
                    <DeleteViewForm id={v.id} />
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

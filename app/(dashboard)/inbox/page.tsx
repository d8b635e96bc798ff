// /inbox — the support engineer's home: open clusters of my team's sources, newest wave first
import { pageActor } from '@/lib/auth/guard';
import { listSources } from '@/lib/sources/list-sources';

export default async function InboxPage() {
  const actor = await pageActor('deadletters.read');
  const sources = await listSources(actor);
  return (
    <>
      <h1>Inbox</h1>
      <div className="card">
        <p className="muted">Open clusters of your team&apos;s sources will appear here, newest wave first.</p>
        <p>Sources you can see: {sources.map((s) => s.name).join(', ') || 'none'}</p>
      </div>
    </>
  );
}

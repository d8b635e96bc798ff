import Link from 'next/link';
import type { ReactNode } from 'react';
import { can } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { listViews } from '@/lib/saved-views';
import { NavMenu } from '@/components/nav-menu';
import { signOutAction } from './actions';

export const dynamic = 'force-dynamic';

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const actor = await pageActor();
  const views = can(actor.role, 'views.manage') ? await listViews(actor) : [];
  // Links follow the permission map only for convenience; every page and action checks again.
  return (
    <div className="shell">
      <a href="#main" className="skip">
        Skip to content
      </a>
      <nav className="nav" aria-label="Main">
        <span className="brand">Triage</span>
        <NavMenu>
          {can(actor.role, 'deadletters.read') ? (
            <>
              <Link href="/inbox">Inbox</Link>
              <Link href="/dead-letters">Dead letters</Link>
              <Link href="/clusters">Clusters</Link>
              <Link href="/redrives">Redrives</Link>
              <Link href="/sla">SLA board</Link>
              <Link href="/alarms">Alarms</Link>
              <Link href="/sources">Sources</Link>
            </>
          ) : null}
          {can(actor.role, 'sources.policy') ? <Link href="/settings/webhooks">Webhooks</Link> : null}
          {can(actor.role, 'audit.read') ? <Link href="/audit">Audit trail</Link> : null}
          {can(actor.role, 'admin.manage') ? <Link href="/admin">Admin</Link> : null}
          {can(actor.role, 'views.manage') ? (
            <section aria-label="Saved views" data-testid="nav-views" className="views">
              <Link href="/views" className="heading">
                Views
              </Link>
              {views.map((v) => (
                <Link key={v.id} href={`/views/${v.id}`} title={v.mine ? (v.shared ? 'yours, shared with your team' : 'yours') : `shared by ${v.owner}`}>
                  {v.name}
                  {v.mine ? '' : <span className="muted"> · {v.owner.split('@')[0]}</span>}
                </Link>
              ))}
            </section>
          ) : null}
          <div className="who">
            <div data-testid="whoami">{actor.email}</div>
            <div className="muted" data-testid="role">
              {actor.role}
            </div>
            <form action={signOutAction}>
              <button className="secondary" type="submit" style={{ marginTop: 8 }}>
                Sign out
              </button>
            </form>
          </div>
        </NavMenu>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

// /settings/webhooks — where my team's alarm notifications go: webhooks, test send, delivery log
// (?webhook=<id>: one webhook's log, which a team with many webhooks needs to find a test send)
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { scopeFor } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { listTeams } from '@/lib/admin/teams';
import { AppError } from '@/lib/errors';
import { listDeliveries, listWebhooks } from '@/lib/notifications/webhooks';
import { DataTable } from '@/components/data-table';
import { utc } from '@/components/format';
import { createWebhookAction, deleteWebhookAction, setWebhookEnabledAction, testWebhookAction } from './actions';
import { WebhookForm } from './webhook-form';
import { LimitedInput } from '@/components/limited-input';

export default async function WebhooksPage({ searchParams }: { searchParams: Promise<{ webhook?: string }> }) {
  const actor = await pageActor('sources.policy');
  const only = (await searchParams).webhook;
  // A role that manages every team's webhooks picks the team; one scoped to its team adds to its own.
  const picksTeam = scopeFor(actor.role, 'sources.policy') === 'all';
  const log = listDeliveries(actor, { limit: 50, ...(only ? { webhookId: only } : {}) }).catch((e: unknown) => {
    // Another team's webhook, or none: a 404, as if it did not exist.
    if (e instanceof AppError && e.status === 404) notFound();
    throw e;
  });
  const [webhooks, deliveries, teams] = await Promise.all([listWebhooks(actor), log, picksTeam ? listTeams() : []]);
  const urls = new Map(webhooks.map((w) => [w.id, w.url]));
  return (
    <>
      <h1>Team webhooks</h1>
      <p className="muted">
        Alarm transitions of your team&apos;s sources are POSTed here as Slack-compatible JSON (<code>{'{ text, blocks }'}</code>), signed with HMAC-SHA256 over{' '}
        <code>timestamp.body</code> in <code>X-Triage-Signature</code> (timestamp in <code>X-Triage-Timestamp</code>), retried with backoff.
      </p>
      <DataTable
        testId="webhooks-table"
        rows={webhooks}
        rowKey={(w) => w.id}
        rowProps={(w) => ({ 'data-url': w.url })}
        columns={[
          { header: 'URL', cell: (w) => <code>{w.url}</code> },
          { header: 'Team', cell: (w) => w.team.name },
          { header: 'Status', cell: (w) => (w.enabled ? <span className="badge good">enabled</span> : <span className="badge">disabled</span>) },
          {
            header: '',
            cell: (w) => (
              <>
                <Link href={`/settings/webhooks?webhook=${w.id}#log`}>Delivery log</Link>{' '}
                <WebhookForm action={testWebhookAction} submit="Send test">
                  <input type="hidden" name="id" value={w.id} />
                </WebhookForm>
                <WebhookForm action={setWebhookEnabledAction} submit={w.enabled ? 'Disable' : 'Enable'} className="secondary">
                  <input type="hidden" name="id" value={w.id} />
                  <input type="hidden" name="enabled" value={String(!w.enabled)} />
                </WebhookForm>
                <WebhookForm action={deleteWebhookAction} submit="Delete" className="danger">
                  <input type="hidden" name="id" value={w.id} />
                </WebhookForm>
              </>
            ),
          },
        ]}
      />
      {webhooks.length === 0 ? <p className="muted">No webhooks yet: alarms show in the app only.</p> : null}

      <h2>Add a webhook</h2>
      <div className="card">
        <WebhookForm action={createWebhookAction} submit="Add webhook" testId="create-webhook">
          <label>
            URL
            <LimitedInput limit={2000} name="url" type="url" required placeholder="https://hooks.slack.com/services/…" size={48} />
          </label>
          {picksTeam ? (
            <label>
              Team
              <select name="team" required>
                {teams.map((t) => (
                  <option key={t.id} value={t.name}>
                    {t.name}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
        </WebhookForm>
      </div>

      <h2 id="log">Delivery log</h2>
      {only ? (
        <p data-testid="deliveries-of">
          Deliveries to <code>{urls.get(only) ?? ''}</code> only · <Link href="/settings/webhooks#log">every webhook</Link>
        </p>
      ) : null}
      <DataTable
        testId="deliveries-table"
        label="Delivery log"
        rows={deliveries}
        rowKey={(d) => d.id}
        columns={[
          { header: 'Time (UTC)', cell: (d) => utc(d.createdAt) },
          { header: 'Webhook', cell: (d) => <code>{urls.get(d.webhookId) ?? ''}</code> },
          { header: 'Event', cell: (d) => d.event },
          {
            header: 'Status',
            cell: (d) => <span className={`badge ${d.status === 'delivered' ? 'good' : d.status === 'failed' ? 'bad' : 'warn'}`}>{d.status}</span>,
          },
          { header: 'Attempts', cell: (d) => d.attempts },
          { header: 'Response', cell: (d) => d.responseStatus ?? d.error ?? '' },
          { header: 'Message', className: 'prose', cell: (d) => d.text },
        ]}
      />
    </>
  );
}

// The source page's connector section: where the source reads from, its import's health (from
// connector_health), its source queue as last read, the broker's settings checked against the
// known traps, the error-text notice, and the buttons its owners may use.
import Link from 'next/link';
import { Suspense } from 'react';
import { can, canForTeam, type Actor } from '@/lib/auth';
import { formatDuration } from '@/lib/duration';
import type { SourceDetail } from '@/lib/sources/get-source';
import { ImportSwitch, TestConnection } from '@/components/connector-forms';
import { ConnectorTraps } from './connector-traps';
import { SourceQueueFigures } from '@/components/source-queue';

/** What the source reads, in its kind's own terms. */
function location(kind: string, settings: Record<string, unknown>): string {
  if (kind === 'sqs') return String(settings.queueUrl ?? '?');
  if (kind === 'nats') return `stream ${String(settings.stream ?? '?')}, consumer ${String(settings.consumer ?? '?')}`;
  if (kind === 'sidekiq') return `${settings.namespace ? `${String(settings.namespace)}:` : ''}dead`;
  return String(settings.queue ?? '?');
}

const at = (d: Date | null) =>
  d ? `${d.toISOString().replace('T', ' ').slice(0, 19)} UTC (${formatDuration((Date.now() - d.getTime()) / 1000)} ago)` : 'never';

export function ConnectorPanel({ actor, source }: { actor: Actor; source: SourceDetail }) {
  const c = source.connector!;
  const h = c.health;
  const settings = source.connection ?? {};
  const mayOperate = canForTeam(actor, 'sources.import', source.teamId);
  const state = source.importPaused ? 'paused' : !h ? 'not started yet' : h.consecutiveFailures > 0 ? 'failing' : 'running';
  return (
    <>
      <h2>Connector</h2>
      <div className="card" data-testid="connector-health">
        <p>
          Reads <code>{location(source.kind, settings)}</code> ({source.kind}) · credentials {source.credentialsSet ? 'set' : 'missing'} · import{' '}
          <span className={`badge ${state === 'running' ? 'good' : state === 'failing' ? 'bad' : 'warn'}`} data-testid="import-state">
            {state}
          </span>
          {can(actor.role, 'admin.manage') ? (
            <>
              {' '}
              · <Link href={`/admin/sources/${encodeURIComponent(source.name)}`}>edit connection</Link>
            </>
          ) : null}
        </p>
        <table>
          <tbody>
            <tr>
              <th>Last successful poll</th>
              <td className="time" data-testid="health-last-success">
                {at(h?.lastSuccessAt ?? null)}
              </td>
            </tr>
            <tr>
              <th>Imported</th>
              <td data-testid="health-imported">{h ? h.importedTotal : 0}</td>
            </tr>
            <tr>
              <th>Lag (left on the broker)</th>
              <td data-testid="health-lag">{h?.lag ?? '—'}</td>
            </tr>
            <tr>
              <th>Source queue (what the consumer reads)</th>
              <td className="prose" data-testid="health-source-queue">
                <SourceQueueFigures reading={c.sourceQueue} showQueue />
                {c.sourceQueue?.readAt ? <span className="muted"> · read {at(c.sourceQueue.readAt)}</span> : null}
              </td>
            </tr>
            <tr>
              <th>Last error</th>
              <td data-testid="health-last-error">
                {h?.lastError ? (
                  <>
                    <span className="error">{h.lastError}</span> <span className="muted">at {at(h.lastErrorAt)}</span>
                    {h.consecutiveFailures > 0 ? ` · ${h.consecutiveFailures} failed attempt${h.consecutiveFailures === 1 ? '' : 's'} in a row` : ''}
                  </>
                ) : (
                  'none'
                )}
              </td>
            </tr>
          </tbody>
        </table>
        <Suspense fallback={<p className="muted">Checking the broker’s dead-letter settings…</p>}>
          <ConnectorTraps actor={actor} source={source.name} />
        </Suspense>
        {c.errorText.notice ? (
          <p className="badge warn" data-testid="error-text-notice" style={{ marginTop: 8, whiteSpace: 'normal' }}>
            {c.errorText.notice}
          </p>
        ) : null}
        {mayOperate ? (
          <div style={{ display: 'flex', gap: 24, flexWrap: 'wrap', marginTop: 12 }}>
            <TestConnection source={source.name} />
            <ImportSwitch source={source.name} paused={source.importPaused} />
          </div>
        ) : null}
      </div>
    </>
  );
}

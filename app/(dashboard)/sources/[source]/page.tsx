// /sources/:source — one source: its alarms, grouping and redrive rules, its policy (editable by its owners) and its charts
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { can, canForTeam } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { listAlarmEvents } from '@/lib/alarms/list-alarms';
import { AppError } from '@/lib/errors';
import { isChartRange, sourceCharts, CHART_RANGES, type ChartRange } from '@/lib/rollups/source-charts';
import { formatDuration } from '@/lib/duration';
import { getSource } from '@/lib/sources/get-source';
import { getSourcePolicy } from '@/lib/sources/update-policy';
import { AlarmBanner } from '@/components/alarm-banner';
import { AlarmEventsTable } from '@/components/alarm-events-table';
import { AgeHistogramChart } from '@/components/charts/age-histogram-chart';
import { DepthAgeChart } from '@/components/charts/depth-age-chart';
import { RateByReasonChart } from '@/components/charts/rate-by-reason-chart';
import { Sparkline } from '@/components/charts/sparkline';
import { redriveHref } from '@/components/redrive/redrive-href';
import { ConnectorPanel } from './connector-panel';
import { GroupingPanel } from './grouping-panel';
import { PolicyForm } from './policy-form';
import { RedriveRulesPanel } from './redrive-rules-panel';
import styles from '../sources.module.css';

async function load(actor: Awaited<ReturnType<typeof pageActor>>, ref: string, range: ChartRange) {
  try {
    return await Promise.all([sourceCharts(actor, ref, { range }), getSourcePolicy(actor, ref), getSource(actor, ref)]);
  } catch (e) {
    if (e instanceof AppError && e.code === 'not_found') notFound();
    throw e;
  }
}

export default async function SourcePage({ params, searchParams }: { params: Promise<{ source: string }>; searchParams: Promise<{ range?: string }> }) {
  const actor = await pageActor('deadletters.read');
  const ref = (await params).source;
  const sp = await searchParams;
  const range: ChartRange = isChartRange(sp.range) ? sp.range : '24h';
  const [charts, { source: policy, warnings }, detail] = await load(actor, ref, range);
  const { source } = charts;
  const events = await listAlarmEvents(actor, { sourceId: source.id, limit: 10 });
  return (
    <>
      <h1>{source.name}</h1>
      <p className="muted">
        Team {source.team.name} · {source.kind}
        {source.description ? ` · ${source.description}` : ''} ·{' '}
        <Link href={`/dead-letters?source=${encodeURIComponent(source.name)}&status=open`}>open dead letters</Link>
        {can(actor.role, 'deadletters.redrive') ? (
          <>
            {' '}
            · <Link href={redriveHref({ source: source.name })}>redrive them…</Link>
          </>
        ) : null}
      </p>
      <AlarmBanner actor={actor} sourceId={source.id} />
      {detail.connector ? <ConnectorPanel actor={actor} source={detail} /> : null}

      <GroupingPanel actor={actor} source={source.name} teamId={source.teamId} />

      <RedriveRulesPanel actor={actor} source={source.name} teamId={source.teamId} />

      <Policy policy={policy} warnings={warnings} mayEdit={canForTeam(actor, 'sources.policy', source.teamId)} />

      <Charts charts={charts} range={range} />

      <h2>Alarm history</h2>
      <AlarmEventsTable events={events} testId="alarm-history" />
      {events.length === 0 ? (
        <p className="muted">No alarm transitions yet.</p>
      ) : (
        <Link href={`/alarms?source=${encodeURIComponent(source.name)}`}>All transitions →</Link>
      )}
    </>
  );
}

type PolicyView = Awaited<ReturnType<typeof getSourcePolicy>>;

/** The policy: a form for the source's owners, a table for everyone else, and what the last change warned about. */
function Policy({ policy, warnings, mayEdit }: { policy: PolicyView['source']; warnings: PolicyView['warnings']; mayEdit: boolean }) {
  return (
    <>
      <h2>Policy</h2>
      {mayEdit ? (
        <div className="card">
          <PolicyForm policy={policy} />
        </div>
      ) : (
        // Focusable: on a phone it scrolls inside its own box, which a keyboard must reach.
        <table className={styles.policy} data-testid="policy-table" tabIndex={0} aria-label="Policy">
          <tbody>
            <tr>
              <th>Retention</th>
              <td>{formatDuration(policy.retentionSeconds)}</td>
              <th>Age deadline</th>
              <td>{formatDuration(policy.ageDeadlineSeconds)}</td>
              <th>Max receives</th>
              <td>{policy.maxReceives}</td>
              <th>Visibility timeout</th>
              <td>{formatDuration(policy.visibilityTimeoutMs / 1000)}</td>
              <th>Max redrives</th>
              <td>{policy.maxRedrives}</td>
              <th>Approval threshold</th>
              <td>{policy.approvalThreshold}</td>
              <th>Edit approval from</th>
              <td>{policy.editApprovalThreshold}</td>
              <th>Accepts redrives from</th>
              <td data-testid="redrive-allowed-from">{policy.redriveAllowedFrom.length ? policy.redriveAllowedFrom.join(', ') : '—'}</td>
              <th>Rate alarm (per 5 min)</th>
              <td>
                {policy.alarmRatePending} pending / {policy.alarmRateAlarm} alarm
              </td>
            </tr>
          </tbody>
        </table>
      )}
      {warnings.map((w) => (
        <p key={w.message} className="badge warn">
          {w.message}
        </p>
      ))}
    </>
  );
}

/** The charts over the chosen range (24 h to 30 days) and the clusters of the last 24 hours. */
function Charts({ charts, range }: { charts: Awaited<ReturnType<typeof sourceCharts>>; range: ChartRange }) {
  const withDate = range === '7d' || range === '30d';
  return (
    <>
      <h2>
        Charts{' '}
        <span className={styles.ranges}>
          {(Object.keys(CHART_RANGES) as ChartRange[]).map((r) =>
            r === range ? (
              <strong key={r}>{r}</strong>
            ) : (
              <Link key={r} href={`?range=${r}`}>
                {r}
              </Link>
            ),
          )}
        </span>
      </h2>
      <div className={styles.charts}>
        <div className="card">
          <h3>Dead letters by reason</h3>
          <RateByReasonChart data={charts.rate} withDate={withDate} />
        </div>
        <div className="card">
          <h3>Open and oldest age</h3>
          <DepthAgeChart data={charts.depth} withDate={withDate} />
        </div>
        <div className="card">
          <h3>Age of open dead letters</h3>
          <AgeHistogramChart data={charts.histogram} />
        </div>
        <div className="card">
          <h3>Clusters, last 24 h</h3>
          <table>
            <tbody>
              {charts.clusters.map((c) => (
                <tr key={c.clusterId}>
                  <td className={styles.template} title={c.template}>
                    {c.errorType ? <strong>{c.errorType}</strong> : null} {c.template}
                  </td>
                  <td>{c.openCount} open</td>
                  <td>
                    <Sparkline values={c.hourly} title={`dead letters per hour, last 24 h: ${c.hourly.join(', ')}`} />
                  </td>
                </tr>
              ))}
              {charts.clusters.length === 0 ? (
                <tr>
                  <td className="muted">No clusters with open or recent dead letters.</td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
      </div>
    </>
  );
}

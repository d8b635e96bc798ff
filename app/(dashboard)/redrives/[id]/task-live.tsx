'use client';
// The task page's live part: polls the task (every second while it is active) and its rate series.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { destinationWords } from '@/lib/redrive/destination-words';
import { ACTIVE_REDRIVE_STATUSES } from '@/lib/enums';
import { redriveKeys } from '@/lib/query-keys';
import type { ClusterRedriveOutcome } from '@/lib/redrive';
import { ProgressBar } from '@/components/redrive/progress-bar';
import { redriveApi, type TaskWithHistory } from '@/components/redrive/redrive-api';
import { CommandButtons } from '../command-buttons';
import { formatDuration } from '@/lib/duration';
import { awaitingOutcomes, outcomeWords, STATUS_BADGE, VERDICT_BADGE } from '../format';
import { RateChart } from './rate-chart';
import { SelectionWords } from '@/components/redrive/selection-words';
import { utc } from '@/components/format';

/** A stored instant as a person reads it: `2026-01-31 12:00:00 UTC`, or a dash. */
const when = (iso: string | null | undefined): string => (iso ? `${utc(new Date(iso))} UTC` : '—');

const ACTIVE = new Set<string>(ACTIVE_REDRIVE_STATUSES);

const COUNTS = [
  ['total', 'total'],
  ['sent', 'sent'],
  ['acknowledged', 'acknowledged'],
  ['noDeathSeen', 'no death seen'],
  ['deadAgain', 'dead again'],
  ['awaitingOutcome', 'awaiting outcome'],
  ['skipped', 'skipped'],
  ['failed', 'failed'],
  ['pending', 'not sent yet'],
] as const;

/** The wall clock, ticking each second once mounted (null on the server, so the first render matches). */
function useNow(): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, []);
  return now;
}

function describeRamp(ramp: unknown): string | null {
  const r = ramp as { steps?: number[]; stepSeconds?: number } | null;
  return r?.steps?.length ? `ramp ${r.steps.join(' → ')}/s, ${r.stepSeconds} s each` : null;
}

export function TaskLive({
  initial,
  cluster,
  canControl,
  canApprove,
  auditHref,
}: {
  initial: TaskWithHistory;
  /** For a cluster's redrive: every redrive of that cluster so far. */
  cluster: (ClusterRedriveOutcome & { id: string }) | null;
  canControl: boolean;
  canApprove: boolean;
  auditHref: string | null;
}) {
  const { data: task } = useQuery({
    queryKey: redriveKeys.detail(initial.id),
    queryFn: () => redriveApi.task(initial.id),
    initialData: initial,
    refetchInterval: (q) => (ACTIVE.has(q.state.data?.status ?? '') ? 1_000 : 10_000),
  });
  const active = ACTIVE.has(task.status);
  const series = useQuery({
    queryKey: redriveKeys.series(task.id),
    queryFn: () => redriveApi.series(task.id),
    refetchInterval: active ? 2_000 : false,
  });
  const c = task.counts;
  const verbs = [
    ...(canApprove && task.status === 'pending_approval' ? (['approve'] as const) : []),
    ...(canControl && (task.status === 'queued' || task.status === 'running') ? (['pause'] as const) : []),
    ...(canControl && task.status === 'paused' ? (['resume'] as const) : []),
    ...(canControl && active ? (['cancel'] as const) : []),
  ];
  const ramp = describeRamp(task.ramp);
  const now = useNow();
  const dueAt = task.outcomesDueAt ? Date.parse(task.outcomesDueAt) : null;
  return (
    <>
      <h1>
        {task.edit ? (task.edit.kind === 'edit' ? 'Redrive of an edited copy from ' : 'Redrive of transformed copies from ') : 'Redrive of '}
        {task.source.name}
        {task.destination.id !== task.source.id ? <span data-testid="redrive-route"> → {task.destination.name}</span> : null}{' '}
        <span className={`badge ${STATUS_BADGE[task.status]}`} data-testid="redrive-status">
          {task.status.replace('_', ' ')}
        </span>
      </h1>
      {task.pausedReason ? (
        <p className="error" role="alert" data-testid="paused-reason">
          {task.pausedReason}
        </p>
      ) : null}
      {awaitingOutcomes(task) ? (
        <p data-testid="awaiting-outcomes">
          <strong>Running — awaiting outcomes:</strong> everything is sent; {c.awaitingOutcome} still inside the {formatDuration(task.outcomeWindowSeconds)}{' '}
          outcome window. Each counts as dead again if it comes back dead, else as no death seen when its window ends
          {dueAt ? (
            <>
              {' '}
              (the last at {when(new Date(dueAt).toISOString())}
              {now !== null ? `, ${formatDuration((dueAt - now) / 1000)} left` : ''})
            </>
          ) : null}
          ; the task completes then.
        </p>
      ) : null}
      {task.status === 'pending_approval' ? (
        <p className="muted">Waits for a lead&apos;s or admin&apos;s approval (not its starter&apos;s) before anything is sent.</p>
      ) : null}
      <section className="card">
        <ProgressBar counts={c} legend />
        {/* As many counts a row as fit (nine on a wide screen, three on a phone). */}
        <dl style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(96px, max-content))', gap: '4px 24px', margin: '12px 0 0' }}>
          {COUNTS.map(([key, label]) => (
            <div key={key}>
              <dt className="muted" style={{ fontSize: 12 }}>
                {label}
              </dt>
              <dd style={{ margin: 0, fontSize: 18 }} data-testid={`count-${key}`}>
                {c[key]}
              </dd>
            </div>
          ))}
        </dl>
        <p style={{ marginBottom: 0 }}>
          Did it work?{task.sinceResume ? ' Over the whole task, before and after the resume:' : ''}{' '}
          <span className={`badge ${VERDICT_BADGE[task.verdict]}`} data-testid="redrive-verdict">
            {task.verdict}
          </span>{' '}
          <span className="muted">
            {c.acknowledged} acknowledged, {c.noDeathSeen} no death seen, {c.deadAgain} dead again{c.failed ? `, ${c.failed} undelivered` : ''} of {c.sent} sent
          </span>
        </p>
        {task.sinceResume ? (
          <p className="muted" data-testid="since-resume">
            Since the latest resume ({when(task.sinceResume.resumedAt)}), counted apart, as it tells whether the fix worked:{' '}
            <span className={`badge ${VERDICT_BADGE[task.sinceResume.verdict]}`} data-testid="since-resume-verdict">
              {task.sinceResume.verdict}
            </span>{' '}
            {outcomeWords(task.sinceResume.counts)}; before it: {outcomeWords(task.sinceResume.before)}.
          </p>
        ) : null}
        {cluster ? (
          <p className="muted" data-testid="cluster-outcome">
            <Link href={`/clusters/${cluster.id}`}>This cluster</Link> over {cluster.tasks} redrive{cluster.tasks === 1 ? '' : 's'}: {cluster.acknowledged}{' '}
            acknowledged, {cluster.noDeathSeen} no death seen, {cluster.deadAgain} dead again of {cluster.sent} sent ({cluster.verdict}).
          </p>
        ) : null}
        {task.drift > 0 ? (
          <p className="muted" data-testid="redrive-drift">
            {task.drift} matching dead letter{task.drift === 1 ? '' : 's'} arrived after the start: not included (start another redrive for them).
          </p>
        ) : null}
        {verbs.length ? <CommandButtons taskId={task.id} verbs={verbs} withReason /> : null}
      </section>
      <section className="card">
        <h2 style={{ marginTop: 0 }}>Rate</h2>
        <p className="muted">
          {task.ratePerSecond} messages/s{ramp ? ` (${ramp})` : ''}
          {task.canary ? ' · canary first' : ''} ·{' '}
          <span data-testid="redrive-destination">
            {task.destination.id !== task.source.id ? `${task.source.name} → ${task.destination.name}: ` : 'back to '}
            {destinationWords(task.destination)}
          </span>
        </p>
        {task.canaryItem ? (
          <p data-testid="redrive-canary">
            Canary: {task.canaryItem.messageId} sent {when(task.canaryItem.sentAt)}, {task.canaryItem.state.replaceAll('_', ' ')}
            {task.canaryItem.outcomeAt ? ` at ${when(task.canaryItem.outcomeAt)}` : ''}
            {task.canaryItem.nextSentAt ? `; the rest from ${when(task.canaryItem.nextSentAt)}` : '; the rest waits for it'}
          </p>
        ) : null}
        {task.edit ? (
          <div data-testid="redrive-edit">
            <p className="muted">
              {task.edit.kind === 'edit'
                ? 'Sends an edited copy (a version of the dead letter, its own SHA-256); the original bytes stay stored.'
                : `Sends transformed copies (versions of their dead letters): ${JSON.stringify(task.edit.transform)}`}
            </p>
            {task.edit.cannotApplyCount ? (
              <details open data-testid="cannot-apply">
                <summary>{task.edit.cannotApplyCount} the transform cannot apply to: not sent, still open</summary>
                <ul>
                  {(task.edit.cannotApply ?? []).map((x) => (
                    <li key={x.id}>
                      <a href={`/dead-letters/${x.id}`}>{x.messageId}</a>: {x.why}
                    </li>
                  ))}
                </ul>
              </details>
            ) : null}
          </div>
        ) : null}
        <p className="muted" data-testid="outcome-window">
          Outcome window {formatDuration(task.outcomeWindowSeconds)}
          {task.canary ? ` (the canary's ${formatDuration(task.canaryWindowSeconds)})` : ''}: a sent message neither acknowledged nor dead again by then counts
          as no death seen.
        </p>
        {series.data && series.data.points.length > 0 ? (
          <RateChart points={series.data.points} rate={task.ratePerSecond} />
        ) : (
          <p className="muted">Nothing sent yet.</p>
        )}
      </section>
      <section className="card">
        <h2 style={{ marginTop: 0 }}>Task</h2>
        <dl className="facts">
          <dt className="muted">Selection</dt>
          <dd data-testid="redrive-selection">
            <SelectionWords selection={task.selection} source={task.source.name} />
          </dd>
          <dt className="muted">Reason</dt>
          <dd>{task.reason ?? '—'}</dd>
          <dt className="muted">Started by</dt>
          <dd>{task.createdBy ?? '—'}</dd>
          {task.rule ? (
            <>
              <dt className="muted">Origin</dt>
              <dd data-testid="redrive-origin">
                redrive rule &ldquo;{task.rule.name}&rdquo; ({task.rule.kind === 'after_wave' ? 'after a wave' : 'on resolved'}) of{' '}
                <Link href={`/sources/${encodeURIComponent(task.source.name)}`}>{task.source.name}</Link>, for {task.createdBy ?? 'its author'}
              </dd>
            </>
          ) : null}
          <dt className="muted">Approved by</dt>
          <dd>{task.approvedBy ?? '—'}</dd>
          <dt className="muted">Created / started / finished</dt>
          <dd>
            {when(task.createdAt)} / {when(task.startedAt)} / {when(task.finishedAt)}
          </dd>
          {task.loops > 0 ? (
            <>
              <dt className="muted">Loops</dt>
              <dd>{task.loops} skipped: already redriven the source&apos;s maximum number of times</dd>
            </>
          ) : null}
          {task.gone > 0 ? (
            <>
              <dt className="muted">Gone from the source</dt>
              <dd>{task.gone} skipped: no longer on the source&apos;s broker (retried, deleted or trimmed there since the import), so nothing was sent</dd>
            </>
          ) : null}
        </dl>
      </section>
      <section className="card" data-testid="redrive-audit">
        <h2 style={{ marginTop: 0 }}>Audit</h2>
        <ol>
          {task.history.map((e) => (
            <li key={e.id}>
              {when(e.at)} · <strong>{e.action}</strong> by {e.actorEmail} ({e.actorRole}){e.count != null ? ` · ${e.count} items` : ''}
              {e.reason ? ` · why: ${e.reason}` : ''}
              {e.result ? ` · ${e.result}` : ''}
            </li>
          ))}
        </ol>
        {auditHref ? <Link href={auditHref}>This task on the audit trail →</Link> : null}
      </section>
    </>
  );
}

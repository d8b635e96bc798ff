'use client';
// Start a redrive of a selection, from any page: the preview (how many, loops skipped, approval,
// an active task) comes first; then the rate (required, default 10/s), a canary, a ramp, the outcome
// windows (how long a sent message is watched for a death), a reason. Dead letters of an outage whose
// errors still arrive, whatever selects them, or of a source whose alarms say outage, are warned of
// and go only on a lead's confirmation with a reason (lib/redrive/arriving-outage.ts). A source
// whose order a redrive cannot keep (an SQS FIFO queue, lib/connectors/traps.ts) is warned of only.
// Embed: <StartRedrive selection={{ cluster: id }} /> (or { ids }, { filter }, { source }); or link
// to redriveHref(selection) for the full page.
import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useRef, useState, type FormEvent } from 'react';
import { redriveKeys } from '@/lib/query-keys';
import type { RedriveSelectionInput } from '@/lib/redrive';
import { utc } from '@/components/format';
import { TrapList } from '@/components/trap-list';
import { ApiError } from '@/components/api-client';
import { redriveApi } from './redrive-api';
import styles from './redrive.module.css';
import { LimitedInput } from '@/components/limited-input';

const DEFAULT_RATE = 10;
const DEFAULT_OUTCOME_WINDOW_MINUTES = 10;
const DEFAULT_CANARY_WINDOW_SECONDS = 60;

function parseRamp(text: string): number[] | undefined {
  const steps = text
    .split(/[,\s→>-]+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  return steps.length ? steps : undefined;
}

/** `destinations`: sources the actor may redrive into; those of the origin's kind are offered (their allow-list decides). */
export function StartRedrive({
  selection,
  title = 'Redrive',
  destinations,
}: {
  selection: RedriveSelectionInput;
  title?: string;
  destinations?: { name: string; kind: string }[];
}) {
  const router = useRouter();
  const preview = useQuery({ queryKey: redriveKeys.preview(selection), queryFn: () => redriveApi.preview(selection), retry: false });
  const [rate, setRate] = useState(String(DEFAULT_RATE));
  const [canary, setCanary] = useState(true);
  const [ramp, setRamp] = useState('');
  const [outcomeWindow, setOutcomeWindow] = useState(String(DEFAULT_OUTCOME_WINDOW_MINUTES));
  const [canaryWindow, setCanaryWindow] = useState(String(DEFAULT_CANARY_WINDOW_SECONDS));
  const [reason, setReason] = useState('');
  const [destination, setDestination] = useState('');
  const [outageConfirmed, setOutageConfirmed] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const start = useMutation({
    mutationFn: () =>
      redriveApi.start({
        selection,
        ratePerSecond: Number(rate),
        canary,
        ramp: parseRamp(ramp),
        outcomeWindowSeconds: Math.round(Number(outcomeWindow) * 60),
        ...(canary ? { canaryWindowSeconds: Number(canaryWindow) } : {}),
        reason: reason.trim() || undefined,
        ...(destination ? { destination } : {}),
        ...(outageConfirmed ? { outageConfirmed } : {}),
      }),
    onSuccess: (task) => router.push(`/redrives/${task.id}`),
  });

  const p = preview.data;
  const others = p && destinations ? destinations.filter((d) => d.kind === p.source.kind && d.name !== p.source.name) : [];
  const activeTaskId = p?.activeTaskId ?? (start.error instanceof ApiError ? (start.error.details?.activeTaskId as string | undefined) : undefined);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    start.mutate();
  };

  return (
    <section className={`card ${styles.start}`} data-testid="start-redrive">
      <h2 className={styles.title}>{title}</h2>
      {preview.isPending ? <p className="muted">Counting what the redrive would cover…</p> : null}
      {preview.error ? (
        <p className="error" role="alert">
          {preview.error.message}
        </p>
      ) : null}
      {p ? (
        <div className={styles.preview} data-testid="redrive-preview">
          <p>
            <strong data-testid="preview-count">{p.count}</strong> open dead letter{p.count === 1 ? '' : 's'} of <strong>{p.source.name}</strong> back to{' '}
            <code>{p.destination}</code>, frozen at start (later arrivals are not included).
          </p>
          {p.loops > 0 ? (
            <p className={styles.warn}>
              {p.loops} already redriven {p.maxRedrives} times (the source&apos;s max): they will be skipped as a loop.
            </p>
          ) : null}
          {p.needsApproval ? (
            <p className={styles.warn} data-testid="needs-approval">
              Over the approval threshold ({p.approvalThreshold}, counting what you started on this source in the last hour): the task waits for another
              lead&apos;s or an admin&apos;s approval before it sends anything.
            </p>
          ) : null}
          {p.outage ? (
            <p className="error" role="alert" data-testid="outage-warning">
              {p.outage.cause === 'cluster'
                ? `These dead letters include an outage's: its errors are transient and still arriving (the latest at ${utc(new Date(p.outage.lastSeen))} UTC).`
                : `This source's alarms say outage: its errors are transient and still arriving (as of ${utc(new Date(p.outage.lastSeen))} UTC).`}{' '}
              Do not redrive into a downstream that is still broken: check it first, stop the bleeding, capture evidence. Only a lead who has confirmed it is
              healthy redrives now, saying why.
            </p>
          ) : null}
          <TrapList traps={p.traps} testId="redrive-trap" />
          {activeTaskId ? (
            <p className="error" role="alert">
              This source already has an active redrive: <Link href={`/redrives/${activeTaskId}`}>open it</Link>.
            </p>
          ) : null}
        </div>
      ) : null}
      <form ref={formRef} className={styles.form} onSubmit={onSubmit}>
        <label>
          Rate (messages/second)
          <input name="ratePerSecond" type="number" min={1} max={5000} step={1} required value={rate} onChange={(e) => setRate(e.target.value)} />
        </label>
        <label>
          Ramp (optional, e.g. 1, 10, 100)
          <input name="ramp" value={ramp} onChange={(e) => setRamp(e.target.value)} placeholder="none" pattern="[0-9 ,>→-]*" />
        </label>
        <label title="A sent message neither acknowledged nor dead again by then counts as no death seen">
          Outcome window (minutes)
          <input
            name="outcomeWindow"
            type="number"
            min={1}
            max={10080}
            step={1}
            required
            value={outcomeWindow}
            onChange={(e) => setOutcomeWindow(e.target.value)}
          />
        </label>
        {others.length ? (
          <label title="Another source of the same kind; its redrive allow-list must name this one">
            Destination
            <select name="destination" value={destination} onChange={(e) => setDestination(e.target.value)}>
              <option value="">{p?.source.name} (its own source)</option>
              {others.map((d) => (
                <option key={d.name} value={d.name}>
                  {d.name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          Reason{p?.outage ? ' (required: why the downstream is healthy)' : ''}
          <LimitedInput
            name="reason"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            limit={1000}
            required={Boolean(p?.outage)}
            placeholder="e.g. handler v2 deployed"
          />
        </label>
        {p?.outage ? (
          <label className={styles.check}>
            <input name="outageConfirmed" type="checkbox" required checked={outageConfirmed} onChange={(e) => setOutageConfirmed(e.target.checked)} />I am a
            lead and have confirmed the downstream is healthy again: redrive this outage now
          </label>
        ) : null}
        <label className={styles.check}>
          <input name="canary" type="checkbox" checked={canary} onChange={(e) => setCanary(e.target.checked)} />
          Canary: one message first, the rest only after it was acknowledged or its window passed with no death seen
        </label>
        {canary ? (
          <label>
            Outcome window of the canary (seconds)
            <input
              name="canaryWindow"
              type="number"
              min={1}
              max={604800}
              step={1}
              required
              value={canaryWindow}
              onChange={(e) => setCanaryWindow(e.target.value)}
            />
          </label>
        ) : null}
        <button type="submit" disabled={!p || p.count === 0 || Boolean(activeTaskId) || start.isPending}>
          {p?.needsApproval ? 'Ask for approval' : 'Start redrive'}
        </button>
        {start.error && !activeTaskId ? (
          <span className="error" role="alert">
            {start.error instanceof ApiError ? start.error.textFor(formRef.current) : start.error.message}
          </span>
        ) : null}
      </form>
      <p className="muted">Fix the cause first: a redrive before the fix, or at full speed into a just-recovered downstream, re-creates the outage.</p>
    </section>
  );
}

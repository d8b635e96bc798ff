// /dead-letters/[id] — one dead letter: payload (text, JSON, hex, download), headers, metadata, failure history, decisions; its tombstone once retention dropped it
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { can, type Actor } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { canReveal, type MaskedPayload } from '@/lib/masking';
import { DECISIONS } from '@/lib/deadletters/decide';
import { getDeadLetter, getDeadLetterPayload, maskedView, parseDeadLetterId, type DeadLetterDetail } from '@/lib/deadletters/get-dead-letter';
import { getDeadLetterTombstone, type DeadLetterTombstoneView } from '@/lib/deadletters/get-tombstone';
import { viewPayload, type PayloadMode, type PayloadView } from '@/lib/deadletters/payload-view';
import { activeReveal } from '@/lib/deadletters/reveal-payload';
import { listDeadLetterVersions, type DeadLetterVersionView } from '@/lib/redrive/edit';
import { redriveHref } from '@/components/redrive/redrive-href';
import { DataTable } from '@/components/data-table';
import { DecisionForm, RevealForm } from '../forms';
import { age, bytes, utc } from '@/components/format';
import { AuditHistory, DeadLetterTitle, identityRows, Meta } from './meta';
import { PayloadViewer } from './payload-viewer';
import { TombstoneView } from './tombstone-view';
import styles from '../dead-letters.module.css';

type Params = { id: string };
type Search = { view?: string; reveal?: string };

async function load(
  actor: Actor,
  id: string,
  reveal: string | undefined,
): Promise<{ d: DeadLetterDetail; revealed: boolean } | { tombstone: DeadLetterTombstoneView }> {
  try {
    // Headers and error text are masked (lib/masking) until this reader has revealed the dead letter.
    const revealed = await activeReveal(actor, id, reveal);
    return { d: await getDeadLetter(actor, id, { clear: revealed }), revealed };
  } catch (e) {
    if (e instanceof AppError && e.status === 404) notFound();
    // Its month was dropped by retention: what is kept of it, rather than "not found".
    if (e instanceof AppError && e.status === 410) {
      const tombstone = await getDeadLetterTombstone(actor, parseDeadLetterId(id));
      if (tombstone) return { tombstone };
      notFound();
    }
    throw e;
  }
}

const when = (iso: string | null) => (iso ? `${iso} (${age(iso)} ago)` : null);

export default async function DeadLetterPage({ params, searchParams }: { params: Promise<Params>; searchParams: Promise<Search> }) {
  const actor = await pageActor('deadletters.read');
  const { id } = await params;
  const sp = await searchParams;
  const loaded = await load(actor, id, sp.reveal);
  if ('tombstone' in loaded) return <TombstoneView t={loaded.tombstone} />;
  const { d, revealed } = loaded;
  const stored = d.payloadAvailable ? await getDeadLetterPayload(actor, id) : null;
  const masking: MaskedPayload = stored?.payload && !revealed ? maskedView({ ...stored, payload: stored.payload }) : { state: 'clear' };
  const view = stored?.payload && masking.state === 'clear' ? viewPayload(stored.payload) : null;
  const versions = await listDeadLetterVersions(actor, id);
  // Downloads and links carry the reveal along, so a revealed reader stays revealed (recorded once).
  const reveal = revealed && sp.reveal ? sp.reveal : undefined;

  return (
    <>
      <DeadLetterTitle messageId={d.messageId} status={d.status} />
      <p className="muted">
        {d.source.name} ({d.source.team}) · {d.reason} · dead {when(d.deadAt)}
        {d.cluster ? (
          <>
            {' '}
            · cluster <Link href={`/clusters/${d.cluster.id}`}>{d.cluster.template || d.cluster.errorType || d.cluster.id}</Link> ({d.cluster.openCount} open of{' '}
            {d.cluster.count})
          </>
        ) : null}
      </p>
      <Decision actor={actor} d={d} reveal={reveal} />
      <Payload actor={actor} d={d} stored={!!stored} masking={masking} view={view} revealed={revealed} reveal={reveal} requested={sp.view} />
      {versions.length ? <Versions d={d} versions={versions} masked={masking.state !== 'clear'} reveal={reveal} /> : null}
      <ErrorAndMetadata d={d} />
      <Headers d={d} />
    </>
  );
}

const revealSuffix = (reveal: string | undefined) => (reveal ? `?reveal=${encodeURIComponent(reveal)}` : '');

/** Its decision so far and the ones the role may take now. */
function Decision({ actor, d, reveal }: { actor: Actor; d: DeadLetterDetail; reveal: string | undefined }) {
  const canArchive = can(actor.role, DECISIONS.archive.permission) && (DECISIONS.archive.from as readonly string[]).includes(d.status);
  const canDiscard = can(actor.role, DECISIONS.discard.permission) && (DECISIONS.discard.from as readonly string[]).includes(d.status);
  // Only open dead letters are redriven; the start page previews before anything is sent.
  const canRedrive = can(actor.role, 'deadletters.redrive') && d.status === 'open';
  const canEdit = can(actor.role, 'deadletters.edit') && d.payloadAvailable;
  const revealQuery = revealSuffix(reveal);
  return (
    <div className="card" data-testid="decisions">
      <h2 style={{ marginTop: 0 }}>Decision</h2>
      {d.decision.decidedAt ? (
        <p data-testid="decision">
          <strong>{d.status}</strong> by {d.decision.decidedBy?.email ?? 'system'} at {d.decision.decidedAt}: “{d.decision.reason}”
        </p>
      ) : d.heldBy ? (
        <p data-testid="held-by">
          Held by <Link href={`/redrives/${d.heldBy.taskId}`}>redrive task {d.heldBy.taskId.slice(0, 8)}</Link> ({d.heldBy.status.replace('_', ' ')}
          {d.heldBy.pausedReason ? `: ${d.heldBy.pausedReason}` : ''}). It stays on the age clock until the task sends it; cancel or finish the task to decide
          it otherwise.
        </p>
      ) : (
        <p className="muted">Undecided: redrive it after the fix, or archive or discard it on purpose.</p>
      )}
      {canRedrive ? (
        <p>
          <Link href={redriveHref({ ids: [d.id] })} data-testid="redrive-link">
            Redrive…
          </Link>
          {canEdit ? (
            <>
              {' · '}
              <Link href={`/dead-letters/${d.id}/edit${revealQuery}`} data-testid="edit-link">
                Edit and redrive…
              </Link>
            </>
          ) : null}
        </p>
      ) : null}
      {canArchive ? <DecisionForm id={d.id} decision="archive" label="Archive" /> : null}
      {canDiscard ? <DecisionForm id={d.id} decision="discard" label="Discard payload" danger /> : null}
      <AuditHistory history={d.history} />
    </div>
  );
}

/** The payload: gone, masked until revealed, or shown as text, JSON or hex with a download of the exact bytes. */
function Payload({
  actor,
  d,
  stored,
  masking,
  view,
  revealed,
  reveal,
  requested,
}: {
  actor: Actor;
  d: DeadLetterDetail;
  stored: boolean;
  masking: MaskedPayload;
  view: PayloadView | null;
  revealed: boolean;
  reveal: string | undefined;
  requested: string | undefined;
}) {
  const mode = requested === 'json' || requested === 'text' || requested === 'hex' ? (requested as PayloadMode) : undefined;
  const hrefFor = (m: PayloadMode) => `/dead-letters/${d.id}?${new URLSearchParams({ view: m, ...(reveal ? { reveal } : {}) })}`;
  const download = `/api/v1/dead-letters/${d.id}/payload${revealSuffix(reveal)}`;
  return (
    <div className="card">
      <h2 style={{ marginTop: 0 }}>Payload</h2>
      <p className="muted">
        {bytes(d.payloadSize)} · {d.contentType ?? 'no content type'} · SHA-256 <code data-testid="sha256">{d.sha256}</code>
      </p>
      {!stored ? (
        <p data-testid="payload-gone">The payload was deleted ({d.status}); this dead letter is kept as a tombstone.</p>
      ) : masking.state !== 'clear' ? (
        <div data-testid="payload-masked">
          <p className={styles.note}>
            {masking.state === 'hidden' ? masking.why : 'Sensitive values are masked.'}
            {canReveal(actor) ? ' Revealing it is recorded on the audit trail.' : ' Your role cannot reveal it.'}
          </p>
          {masking.state === 'masked' ? <pre className={styles.payload}>{masking.json ?? masking.bytes.toString('utf8')}</pre> : null}
          {canReveal(actor) ? <RevealForm id={d.id} /> : null}
        </div>
      ) : view ? (
        <>
          {revealed ? <p className={styles.note}>Revealed: you are seeing the clear payload (recorded on the audit trail).</p> : null}
          <PayloadViewer view={view} mode={mode ?? view.mode} hrefFor={hrefFor} />
          <p>
            <a href={download} download data-testid="download">
              Download the exact bytes
            </a>
          </p>
        </>
      ) : null}
    </div>
  );
}

/** The copies an edit or a transform stored; the original stays as it arrived. */
function Versions({ d, versions, masked, reveal }: { d: DeadLetterDetail; versions: DeadLetterVersionView[]; masked: boolean; reveal: string | undefined }) {
  // A version downloads under the same reveal as the original (lib/redrive/edit/version-payload.ts).
  const versionHref = (v: number) => `/api/v1/dead-letters/${d.id}/versions/${v}/payload${revealSuffix(reveal)}`;
  return (
    <div className="card" data-testid="versions">
      <h2 style={{ marginTop: 0 }}>Edited versions</h2>
      <p className="muted">
        The original above stays as it arrived; each edit or transform stored a copy.
        {masked ? ' Sensitive versions download after a reveal of this dead letter.' : ''}
      </p>
      <DataTable
        rows={versions}
        rowKey={(v) => v.id}
        rowProps={(v) => ({ 'data-testid': `version-${v.version}` })}
        columns={[
          { header: 'Version', cell: (v) => `v${v.version}` },
          { header: 'Size', cell: (v) => bytes(v.size) },
          { header: 'SHA-256', cell: (v) => <code>{v.sha256}</code> },
          { header: 'By', cell: (v) => v.createdBy ?? '—' },
          { header: 'At', className: 'time', cell: (v) => v.createdAt },
          {
            header: '',
            cell: (v) => (
              <a href={versionHref(v.version)} download data-testid={`version-download-${v.version}`}>
                Download
              </a>
            ),
          },
        ]}
      />
    </div>
  );
}

function ErrorAndMetadata({ d }: { d: DeadLetterDetail }) {
  return (
    <div className={styles.columns}>
      <div className="card">
        <h2 style={{ marginTop: 0 }}>Error</h2>
        <Meta
          rows={[
            ['Type', d.errorType],
            ['Message', d.errorMessage],
          ]}
        />
        {d.errorStack ? <pre>{d.errorStack}</pre> : null}
        <h2>Failure history</h2>
        <DataTable
          testId="failure-history"
          label="Failure history"
          rows={d.failureHistory}
          // The failure history is append-only and rendered whole; its entries have no id.
          rowKey={(_, i) => i}
          columns={[
            { header: 'Reason', cell: (f) => f.reason },
            {
              header: 'Error',
              className: 'prose',
              cell: (f) => (
                <>
                  {f.errorType} {f.errorMessage}
                </>
              ),
            },
            { header: 'Count', cell: (f) => f.count },
            { header: 'First (UTC)', cell: (f) => utc(new Date(f.firstAt)) },
            { header: 'Last (UTC)', cell: (f) => utc(new Date(f.lastAt)) },
          ]}
        />
      </div>
      <div className="card">
        <h2 style={{ marginTop: 0 }}>Metadata</h2>
        <Meta
          rows={[
            ...identityRows(d),
            ['Idempotency key', d.idempotencyKey],
            ['Ordering key', d.orderingKey],
            ['Reason', d.reason],
            ['Receive count', d.receiveCount],
            ['Redrive count', d.redriveCount],
            ['Enqueued', when(d.enqueuedAt)],
            ['First failed', when(d.firstFailedAt)],
            ['Last failed', when(d.lastFailedAt)],
            ['Dead', when(d.deadAt)],
            ['Expires', d.expiresAt],
            ['Consumer', [d.consumerName, d.consumerVersion].filter(Boolean).join(' ')],
            ['Correlation id', d.correlationId],
            ['Partition / offset', d.partition === null ? null : `${d.partition} / ${d.offset ?? '—'}`],
            ['Fingerprint', d.fingerprint],
            ['Sensitive', d.sensitive ? 'yes (whole payload)' : d.masked ? "fields (the source's sensitive paths)" : 'no'],
          ]}
        />
      </div>
    </div>
  );
}

function Headers({ d }: { d: DeadLetterDetail }) {
  const headers = d.headers && typeof d.headers === 'object' ? Object.entries(d.headers as Record<string, unknown>) : [];
  return (
    <div className="card">
      <h2 style={{ marginTop: 0 }}>Original headers</h2>
      {headers.length ? (
        <table data-testid="headers">
          <tbody>
            {headers.map(([k, v]) => (
              <tr key={k}>
                <td>
                  <code>{k}</code>
                </td>
                <td>
                  <code>{typeof v === 'string' ? v : JSON.stringify(v)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">No headers.</p>
      )}
    </div>
  );
}

// /dead-letters/[id]/edit — edit and redrive: the payload (JSON with validation, else text or hex) and headers, the diff, then a task of the copy
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { pageActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { maskJson, maskPayload } from '@/lib/masking';
import { getDeadLetter, getDeadLetterPayload } from '@/lib/deadletters/get-dead-letter';
import { activeReveal } from '@/lib/deadletters/reveal-payload';
import { listSources } from '@/lib/sources/list-sources';
import { RevealForm } from '../../forms';
import { EditForm } from './edit-form';

type Params = { id: string };

export default async function EditDeadLetterPage({ params, searchParams }: { params: Promise<Params>; searchParams: Promise<{ reveal?: string }> }) {
  const actor = await pageActor('deadletters.edit');
  const { id } = await params;
  const sp = await searchParams;
  let d;
  try {
    d = await getDeadLetter(actor, id);
  } catch (e) {
    if (e instanceof AppError && e.status === 404) notFound();
    // Dropped by retention: its page says so.
    if (e instanceof AppError && e.status === 410) redirect(`/dead-letters/${encodeURIComponent(id)}`);
    throw e;
  }
  const stored = d.payloadAvailable ? await getDeadLetterPayload(actor, id) : null;
  const revealed = stored ? await activeReveal(actor, id, sp.reveal) : false;
  const masked = stored?.payload
    ? maskPayload(stored.payload, stored.policy).state !== 'clear' || JSON.stringify(maskJson(d.headers)) !== JSON.stringify(d.headers)
    : false;
  const back = (
    <p>
      <Link href={`/dead-letters/${d.id}${revealed && sp.reveal ? `?reveal=${encodeURIComponent(sp.reveal)}` : ''}`}>← Dead letter {d.messageId}</Link>
    </p>
  );
  if (!stored?.payload || d.status !== 'open') {
    return (
      <>
        {back}
        <h1>Edit and redrive</h1>
        <p className="error">Only an open dead letter with its payload is edited and redriven; this one is {stored?.payload ? d.status : 'without payload'}.</p>
      </>
    );
  }
  if (masked && !revealed) {
    // Opening a masked payload in the editor is a reveal: a permission, a reason, an audit event.
    return (
      <>
        {back}
        <h1>Edit and redrive</h1>
        <p data-testid="edit-needs-reveal">
          This payload is masked for you. Reveal it first (your reason goes on the audit trail); the editor opens from the revealed page.
        </p>
        <RevealForm id={d.id} />
      </>
    );
  }
  const sources = await listSources(actor, 'deadletters.redrive');
  const kind = sources.find((s) => s.id === d.source.id)?.kind;
  const destinations = sources.filter((s) => s.kind === kind && s.id !== d.source.id).map((s) => s.name);
  return (
    <>
      {back}
      <h1>
        Edit and redrive <code>{d.messageId}</code>
      </h1>
      <p className="muted">
        The edited copy is stored as a version of this dead letter with its own SHA-256; the original ({stored.size} bytes, SHA-256 <code>{stored.sha256}</code>
        ) stays stored and downloadable. Every edit is seen by a second person unless a lead of {d.source.name} changes that.
      </p>
      <EditForm
        id={d.id}
        source={d.source.name}
        originalBase64={Buffer.from(stored.payload).toString('base64')}
        headers={d.headers && typeof d.headers === 'object' && !Array.isArray(d.headers) ? (d.headers as Record<string, unknown>) : {}}
        revealId={revealed ? sp.reveal : undefined}
        destinations={destinations}
      />
    </>
  );
}

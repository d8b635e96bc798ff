'use client';
// The editor of an edit and redrive: JSON (validated as you type), text, or hex for bytes that are
// not UTF-8; the headers as a JSON object; the diff against the original, computed by the same code
// the server records (lib/redrive/edit/diff); then POST /api/v1/dead-letters/{id}/edit.
import { useRouter } from 'next/navigation';
import { useMemo, useState, type FormEvent } from 'react';
import { editDiff, type EditDiff } from '@/lib/redrive/edit/diff';
import { apiCall } from '@/components/api-client';
import { useApiCall } from '@/components/use-api-call';
import { ReasonField } from '@/components/limited-input';

type Mode = 'json' | 'text' | 'hex';

const fromBase64 = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const toBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''));
const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
const utf8 = new TextDecoder('utf-8', { fatal: true });

function initialMode(bytes: Uint8Array): { mode: Mode; text: string } {
  try {
    const text = utf8.decode(bytes);
    try {
      return { mode: 'json', text: JSON.stringify(JSON.parse(text), null, 2) };
    } catch {
      return { mode: 'text', text };
    }
  } catch {
    return { mode: 'hex', text: toHex(bytes) };
  }
}

function parseHex(text: string): Uint8Array | string {
  const digits = text.replace(/\s+/g, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(digits)) return 'hex: pairs of 0-9 a-f only';
  return Uint8Array.from(digits.match(/../g) ?? [], (h) => parseInt(h, 16));
}

function DiffView({ diff }: { diff: EditDiff }) {
  const p = diff.payload;
  const lines: string[] = [];
  if (p.kind === 'json')
    for (const c of p.changes)
      lines.push(`${c.op} ${c.path}${'before' in c ? `: ${JSON.stringify(c.before)}` : ''}${'after' in c ? ` → ${JSON.stringify(c.after)}` : ''}`);
  if (p.kind === 'text') lines.push(...p.removed.map((l) => `- ${l}`), ...p.added.map((l) => `+ ${l}`));
  if (p.kind === 'bytes' && p.changed) lines.push('the bytes changed');
  for (const h of diff.headers) lines.push(`header ${h.name}: ${JSON.stringify(h.before)} → ${JSON.stringify(h.after)}`);
  return lines.length ? (
    <pre data-testid="edit-diff">{lines.join('\n')}</pre>
  ) : (
    <p className="muted" data-testid="edit-diff">
      No change yet.
    </p>
  );
}

/** A text area for code (the payload, the headers), marked invalid with what is wrong said below it. */
function CodeField(props: {
  label: string;
  name: string;
  rows: number;
  value: string;
  onChange: (value: string) => void;
  problem: string | null;
  problemTestId?: string;
}) {
  return (
    <>
      <label>
        {props.label}
        <textarea
          name={props.name}
          rows={props.rows}
          cols={80}
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          spellCheck={false}
          aria-invalid={props.problem !== null}
        />
      </label>
      {props.problem !== null ? (
        <p className="error" role="alert" data-testid={props.problemTestId}>
          {props.problem}
        </p>
      ) : null}
    </>
  );
}

export function EditForm(props: {
  id: string;
  source: string;
  originalBase64: string;
  headers: Record<string, unknown>;
  revealId?: string;
  destinations: string[];
}) {
  const router = useRouter();
  const original = useMemo(() => fromBase64(props.originalBase64), [props.originalBase64]);
  const start = useMemo(() => initialMode(original), [original]);
  const [mode, setMode] = useState<Mode>(start.mode);
  const [payload, setPayload] = useState(start.text);
  const [headersText, setHeadersText] = useState(JSON.stringify(props.headers, null, 2));
  const [reason, setReason] = useState('');
  const [destination, setDestination] = useState('');
  const { pending, error, setError, run } = useApiCall();

  const bytes: Uint8Array | string = useMemo(() => {
    if (mode === 'hex') return parseHex(payload);
    if (mode === 'json') {
      try {
        // Sent compact: the consumer reads the same JSON, the diff shows only what changed.
        return new TextEncoder().encode(JSON.stringify(JSON.parse(payload)));
      } catch (e) {
        return `Not valid JSON: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    return new TextEncoder().encode(payload);
  }, [mode, payload]);
  const headers: Record<string, unknown> | string = useMemo(() => {
    try {
      const h: unknown = JSON.parse(headersText);
      return h && typeof h === 'object' && !Array.isArray(h) ? (h as Record<string, unknown>) : 'Headers: a JSON object';
    } catch (e) {
      return `Headers are not valid JSON: ${e instanceof Error ? e.message : String(e)}`;
    }
  }, [headersText]);
  const problem = typeof bytes === 'string' ? bytes : typeof headers === 'string' ? headers : null;
  const diff = problem
    ? null
    : editDiff({ payload: original, headers: props.headers }, { payload: bytes as Uint8Array, headers: headers as Record<string, unknown> });

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    if (problem || !diff) return;
    await run(form, async () => {
      const { task } = await apiCall<{ task: { id: string } }>(`/api/v1/dead-letters/${props.id}/edit`, {
        body: {
          payloadBase64: toBase64(bytes as Uint8Array),
          headers,
          reason,
          ...(props.revealId ? { revealId: props.revealId } : {}),
          ...(destination ? { destination } : {}),
        },
      });
      router.push(`/redrives/${task.id}`);
    });
  }

  return (
    <form onSubmit={submit} className="card" data-testid="edit-form">
      <fieldset>
        <legend>Payload as</legend>
        {(['json', 'text', 'hex'] as const).map((m) => (
          <label key={m} className="inline">
            <input
              type="radio"
              name="mode"
              value={m}
              checked={mode === m}
              onChange={() => {
                // Switching view keeps the bytes: hex ⇄ text converts, JSON is text that must parse.
                const cur = typeof bytes === 'string' ? null : bytes;
                if (m === 'hex' && cur) setPayload(toHex(cur));
                else if (mode === 'hex' && cur) {
                  try {
                    setPayload(utf8.decode(cur));
                  } catch {
                    setError('These bytes are not UTF-8: keep the hex view');
                    return;
                  }
                }
                setMode(m);
              }}
            />{' '}
            {m === 'json' ? 'JSON' : m === 'text' ? 'Text' : 'Hex'}
          </label>
        ))}
      </fieldset>
      <CodeField
        label="Payload"
        name="payload"
        rows={14}
        value={payload}
        onChange={setPayload}
        problem={typeof bytes === 'string' ? bytes : null}
        problemTestId="payload-invalid"
      />
      <CodeField
        label="Headers (JSON object)"
        name="headers"
        rows={6}
        value={headersText}
        onChange={setHeadersText}
        problem={typeof headers === 'string' ? headers : null}
      />
      <h2>Diff against the original</h2>
      {diff ? <DiffView diff={diff} /> : null}
      {props.destinations.length ? (
        <label title="Another source of the same kind; its redrive allow-list must name this one">
          Destination
          <select name="destination" value={destination} onChange={(e) => setDestination(e.target.value)}>
            <option value="">{props.source} (its own source)</option>
            {props.destinations.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <ReasonField value={reason} onChange={setReason} placeholder="e.g. removed the field v1 rejects" />
      <button type="submit" disabled={pending || Boolean(problem)}>
        Redrive the edited copy
      </button>
      {error ? (
        <span className="error" role="alert">
          {error}
        </span>
      ) : null}
    </form>
  );
}

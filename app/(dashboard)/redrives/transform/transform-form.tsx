'use client';
// The bulk transform: steps as JSON, a preview on sample messages with the count and those it cannot
// apply to, then a redrive task of the transformed copies (POST /api/v1/redrives/transform).
import { useRouter } from 'next/navigation';
import { useRef, useState, type FormEvent } from 'react';
import type { RedriveSelectionInput } from '@/lib/redrive';
import type { TransformPreview } from '@/lib/redrive/edit';
import { apiCall } from '@/components/api-client';
import { useApiCall } from '@/components/use-api-call';
import { ReasonField } from '@/components/limited-input';

const EXAMPLE = JSON.stringify([{ op: 'remove', path: '$.gift' }], null, 2);

export function TransformForm({ selection }: { selection: RedriveSelectionInput }) {
  const router = useRouter();
  const [stepsText, setStepsText] = useState(EXAMPLE);
  const [preview, setPreview] = useState<TransformPreview | null>(null);
  const [rate, setRate] = useState('10');
  const [reason, setReason] = useState('');
  const { pending, error, run } = useApiCall();
  const formRef = useRef<HTMLFormElement>(null);

  const steps = (): unknown => {
    try {
      return JSON.parse(stepsText);
    } catch {
      throw new Error('The transform is not valid JSON');
    }
  };

  const onPreview = () =>
    run(formRef.current, async () =>
      setPreview(await apiCall<TransformPreview>('/api/v1/redrives/transform/preview', { body: { selection, transform: steps() } })),
    );
  const onStart = (e: FormEvent) => {
    e.preventDefault();
    return run(formRef.current, async () => {
      const r = await apiCall<{ task: { id: string } }>('/api/v1/redrives/transform', {
        body: { selection, transform: steps(), reason, ratePerSecond: Number(rate) },
      });
      router.push(`/redrives/${r.task.id}`);
    });
  };

  return (
    <form ref={formRef} className="card" onSubmit={onStart} data-testid="transform-form">
      <label>
        Transform steps (JSON): {'{ "op": "set", "path", "value" }'}, {'{ "op": "rename", "path", "to" }'}, {'{ "op": "remove", "path" }'},{' '}
        {'{ "op": "header", "name", "value" }'}
        <textarea
          name="transform"
          rows={8}
          cols={80}
          value={stepsText}
          spellCheck={false}
          onChange={(e) => {
            setStepsText(e.target.value);
            setPreview(null);
          }}
        />
      </label>
      <p>
        <button type="button" className="secondary" onClick={onPreview} disabled={pending}>
          Preview
        </button>
      </p>
      {preview ? (
        <section data-testid="transform-preview">
          <p>
            Applies to <strong data-testid="transform-applies">{preview.applies}</strong> of {preview.total} open dead letters of{' '}
            <strong>{preview.source.name}</strong>; <strong data-testid="transform-cannot-count">{preview.cannotApplyCount}</strong> it cannot apply to (listed,
            not sent).
            {preview.needsApproval ? ' The task waits for a second person (another lead of the team, or an admin).' : ''}
          </p>
          {preview.cannotApply.length ? (
            <ul data-testid="transform-cannot-apply">
              {preview.cannotApply.map((c) => (
                <li key={c.id}>
                  <a href={`/dead-letters/${c.id}`}>{c.messageId}</a>: {c.why}
                </li>
              ))}
            </ul>
          ) : null}
          <h2>Samples</h2>
          {preview.samples.map((s) => (
            <div key={s.id} data-testid="transform-sample">
              <p className="muted">{s.messageId}</p>
              <pre>{`before: ${s.before}\nafter:  ${s.after}`}</pre>
            </div>
          ))}
          <label>
            Rate (messages/second)
            <input name="ratePerSecond" type="number" min={1} max={5000} required value={rate} onChange={(e) => setRate(e.target.value)} />
          </label>
          <ReasonField value={reason} onChange={setReason} placeholder="e.g. schema v2: gift removed" />
          <button type="submit" disabled={pending || preview.applies === 0}>
            {preview.needsApproval ? 'Ask for approval' : 'Start the redrive of the transformed copies'}
          </button>
        </section>
      ) : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}

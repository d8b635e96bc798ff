'use client';
// Correcting a cluster, in components of their own: split it by a field after a preview
// of the parts and their counts, undo a merge into it, take a merge suggestion with one click.
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { FormStatus } from '@/components/form-status';
import { acceptMergeSuggestionAction, splitClusterAction, undoMergeAction } from './correction-actions';
import { useActionForm } from '@/components/use-action-form';
import { LimitedInput } from '@/components/limited-input';

const n = (v: number) => v.toLocaleString('en');

export function SplitClusterForm({ clusterId }: { clusterId: string }) {
  const [state, formProps, pending] = useActionForm(splitClusterAction);
  // A preview answers the parts without a message; the split answers them with one.
  const split = state.ok ? state : undefined;
  const done = Boolean(split?.message);
  // Controlled: a form action resets uncontrolled fields, and the split posts what the preview showed.
  const [field, setField] = useState('payload');
  const [path, setPath] = useState('');
  const [name, setName] = useState('');
  const [reason, setReason] = useState('');
  return (
    <form {...formProps} data-testid="split-cluster-form">
      <input type="hidden" name="clusterId" value={clusterId} />
      <div className="inline">
        <label>
          Split by
          <select name="field" value={field} onChange={(e) => setField(e.target.value)}>
            <option value="payload">a JSON path of the payload</option>
            <option value="header">a header</option>
            <option value="errorType">error type</option>
            <option value="topFrame">top frame</option>
          </select>
        </label>
        {field === 'payload' ? (
          <label>
            JSON path
            <LimitedInput limit={200} name="path" required placeholder="$.type" size={24} value={path} onChange={(e) => setPath(e.target.value)} />
          </label>
        ) : null}
        {field === 'header' ? (
          <label>
            Header
            <LimitedInput limit={200} name="name" required placeholder="x-message-type" size={24} value={name} onChange={(e) => setName(e.target.value)} />
          </label>
        ) : null}
        <button type="submit" name="intent" value="preview" className="secondary" disabled={pending}>
          Preview
        </button>
      </div>
      {split?.parts ? (
        <table data-testid="split-preview">
          <caption>
            {done ? 'After the split' : 'The split would make'}, by {split.by}
          </caption>
          <thead>
            <tr>
              <th>{split.by}</th>
              <th>Dead letters</th>
              <th>Open</th>
              <th>Cluster</th>
            </tr>
          </thead>
          <tbody>
            {split.parts.map((p) => (
              <tr key={p.value} data-testid="split-part">
                <td>
                  <code>{p.value}</code>
                </td>
                <td>{n(p.count)}</td>
                <td>{n(p.openCount)}</td>
                <td>
                  {p.clusterId && !p.keepsId ? <Link href={`/clusters/${p.clusterId}`}>new cluster</Link> : p.keepsId ? 'keeps this cluster' : 'a new cluster'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {split?.parts && !done ? (
        <div className="inline">
          <label>
            Reason
            <LimitedInput
              name="reason"
              limit={1000}
              size={40}
              placeholder="e.g. two message types, two causes"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
          </label>
          <button type="submit" name="intent" value="split" disabled={pending || split.parts.length < 2}>
            Split into {split.parts.length} clusters
          </button>
        </div>
      ) : null}
      <FormStatus state={state} />
    </form>
  );
}

export function UndoMergeForm({ mergedId, template }: { mergedId: string; template: string }) {
  const [state, formProps, pending] = useActionForm(undoMergeAction);
  return (
    <form {...formProps} className="inline" data-testid="undo-merge-form">
      <input type="hidden" name="mergedId" value={mergedId} />
      <code>{template}</code>
      <label>
        Reason
        <LimitedInput name="reason" required limit={1000} size={30} placeholder="e.g. a different cause" />
      </label>
      <button type="submit" className="secondary" disabled={pending}>
        Undo merge
      </button>
      <FormStatus state={state} />
    </form>
  );
}

export interface Suggestion {
  id: string;
  template: string;
  count: number;
  evidence: string;
}

export function MergeSuggestion({ clusterId, suggestion }: { clusterId: string; suggestion: Suggestion }) {
  const [state, formProps, pending] = useActionForm(acceptMergeSuggestionAction);
  const router = useRouter();
  const goTo = state.ok ? state.goTo : undefined;
  useEffect(() => {
    if (goTo) router.refresh();
  }, [goTo, router]);
  return (
    <form {...formProps} className="inline" data-testid="merge-suggestion">
      <input type="hidden" name="clusterId" value={clusterId} />
      <input type="hidden" name="suggestedId" value={suggestion.id} />
      <input type="hidden" name="evidence" value={`the differing position is variable in "${suggestion.evidence}"`} />
      <Link href={`/clusters/${suggestion.id}`}>
        <code>{suggestion.template}</code>
      </Link>
      <span className="muted">
        {n(suggestion.count)} dead letters; variable in <code>{suggestion.evidence}</code>
      </span>
      <button type="submit" className="secondary" disabled={pending}>
        Merge into this cluster
      </button>
      <FormStatus state={state} />
    </form>
  );
}

'use client';
// The cluster's ownership: who is on it, its status (on hold needs a note and an end date), ticket
// and fix version, and its note thread. Posts to ownership-actions.ts.
import { useState } from 'react';
import { OWNERSHIP_STATUSES, STATUS_LABEL, type OwnershipStatus } from '@/lib/model/ownership-statuses';
import { FormStatus } from '@/components/form-status';
import { addClusterNoteAction, updateOwnershipAction } from './ownership-actions';
import { useActionForm } from '@/components/use-action-form';
import { LimitedInput } from '@/components/limited-input';

export interface OwnershipView {
  status: OwnershipStatus;
  assignee: string | null;
  ticketUrl: string | null;
  holdUntil: string | null;
  fixVersion: string | null;
  regressedAt: string | null;
  notes: { id: string; author: string; body: string; createdAt: string }[];
}

export function OwnershipPanel({ clusterId, ownership, canEdit, people }: { clusterId: string; ownership: OwnershipView; canEdit: boolean; people: string[] }) {
  const [state, formProps, pending] = useActionForm(updateOwnershipAction);
  const [noteState, noteForm, notePending] = useActionForm(addClusterNoteAction);
  const [status, setStatus] = useState<OwnershipStatus>(ownership.status);
  return (
    <section className="card" data-testid="cluster-ownership">
      <h2>Ownership</h2>
      <p>
        <span className="badge" data-testid="ownership-status">
          {STATUS_LABEL[ownership.status]}
        </span>{' '}
        <span data-testid="ownership-assignee">{ownership.assignee ? `assigned to ${ownership.assignee}` : 'unassigned'}</span>
        {ownership.holdUntil ? (
          <span data-testid="ownership-hold"> · on hold until {new Date(ownership.holdUntil).toISOString().slice(0, 16).replace('T', ' ')} UTC</span>
        ) : null}
        {ownership.fixVersion ? <span> · fixed in {ownership.fixVersion}</span> : null}
        {ownership.ticketUrl ? (
          <>
            {' '}
            ·{' '}
            <a href={ownership.ticketUrl} rel="noreferrer noopener" target="_blank" data-testid="ownership-ticket">
              ticket
            </a>
          </>
        ) : null}
      </p>
      {ownership.regressedAt ? (
        <p className="error" role="status" data-testid="ownership-regression">
          Regression: new dead letters arrived after it was resolved ({new Date(ownership.regressedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC);
          reopened.
        </p>
      ) : null}
      {canEdit ? (
        <form {...formProps} className="inline" data-testid="ownership-form">
          <input type="hidden" name="clusterId" value={clusterId} />
          <label>
            Assignee
            <LimitedInput limit={254} name="assignee" list="ownership-people" defaultValue={ownership.assignee ?? ''} placeholder="email, or me" size={28} />
            <datalist id="ownership-people">
              {people.map((p) => (
                <option key={p} value={p} />
              ))}
            </datalist>
          </label>
          <label>
            Status
            <select name="status" value={status} onChange={(e) => setStatus(e.target.value as OwnershipStatus)}>
              {OWNERSHIP_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_LABEL[s]}
                </option>
              ))}
            </select>
          </label>
          {status === 'on_hold' ? (
            <label>
              Hold until
              <input type="datetime-local" name="holdUntil" required />
            </label>
          ) : null}
          {status === 'resolved' ? (
            <label>
              Fix version
              <LimitedInput limit={100} name="fixVersion" defaultValue={ownership.fixVersion ?? ''} size={12} placeholder="e.g. 2.4.1" />
            </label>
          ) : null}
          <label>
            Ticket
            <LimitedInput limit={2000} type="url" name="ticketUrl" defaultValue={ownership.ticketUrl ?? ''} size={30} placeholder="https://…" />
          </label>
          <label>
            Note{status === 'on_hold' ? ' (why it waits)' : ''}
            <LimitedInput name="note" limit={4000} size={40} required={status === 'on_hold'} />
          </label>
          <button type="submit" disabled={pending}>
            Save
          </button>
          <FormStatus state={state} />
        </form>
      ) : null}
      <h3>Notes</h3>
      {ownership.notes.length === 0 ? <p className="muted">No notes yet.</p> : null}
      <ol data-testid="ownership-notes">
        {ownership.notes.map((n) => (
          <li key={n.id}>
            <strong>{n.author}</strong> <span className="muted">{new Date(n.createdAt).toISOString().slice(0, 16).replace('T', ' ')} UTC</span>: {n.body}
          </li>
        ))}
      </ol>
      {canEdit ? (
        <form {...noteForm} className="inline" data-testid="note-form">
          <input type="hidden" name="clusterId" value={clusterId} />
          <label>
            Add a note
            <LimitedInput name="body" required limit={4000} size={60} />
          </label>
          <button type="submit" className="secondary" disabled={notePending}>
            Add note
          </button>
          <FormStatus state={noteState} />
        </form>
      ) : null}
    </section>
  );
}

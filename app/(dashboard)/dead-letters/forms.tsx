'use client';
// Forms of the dead-letter pages: each posts to a server action and shows its answer in place. None
// is reset after a success: the list's row checkboxes belong to the bulk form.
import { FormStatus } from '@/components/form-status';
import { bulkAction, decideAction, revealAction, searchRevealAction } from './actions';
import styles from './dead-letters.module.css';
import { useActionForm } from '@/components/use-action-form';
import { LimitedInput } from '@/components/limited-input';

/** Archive or discard this dead letter, with a required reason. */
export function DecisionForm({ id, decision, label, danger }: { id: string; decision: 'archive' | 'discard'; label: string; danger?: boolean }) {
  const [state, formProps, pending] = useActionForm(decideAction, { keep: true });
  return (
    <form {...formProps} className="inline" data-testid={`${decision}-form`}>
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="decision" value={decision} />
      <label>
        Reason to {decision}
        <LimitedInput
          name="reason"
          required
          limit={1000}
          placeholder={decision === 'archive' ? 'e.g. invalid for good: order cancelled' : 'e.g. test data, holds personal data'}
        />
      </label>
      <button type="submit" disabled={pending} className={danger ? 'danger' : undefined}>
        {label}
      </button>
      <FormStatus state={state} />
    </form>
  );
}

/** A reveal: one hidden value, a reason, and the audit event its action writes. */
function RevealReasonForm({
  action,
  testId,
  hidden,
  label,
  placeholder,
  submit,
}: {
  action: typeof revealAction;
  testId: string;
  hidden: [name: string, value: string];
  label: string;
  placeholder: string;
  submit: string;
}) {
  const [state, formProps, pending] = useActionForm(action, { keep: true });
  return (
    <form {...formProps} className="inline" data-testid={testId}>
      <input type="hidden" name={hidden[0]} value={hidden[1]} />
      <label>
        {label}
        <LimitedInput name="reason" required limit={1000} placeholder={placeholder} />
      </label>
      <button type="submit" disabled={pending} className="secondary">
        {submit}
      </button>
      <FormStatus state={state} />
    </form>
  );
}

/** Reveal a masked payload: a reason, and an audit event. */
export function RevealForm({ id }: { id: string }) {
  return (
    <RevealReasonForm
      action={revealAction}
      testId="reveal-form"
      hidden={['id', id]}
      label="Reason to reveal"
      placeholder="e.g. customer dispute #1234"
      submit="Reveal"
    />
  );
}

/** Let this search match inside masked values for a while: a reason, and an audit event. */
export function SearchRevealForm({ filter }: { filter: string }) {
  return (
    <RevealReasonForm
      action={searchRevealAction}
      testId="search-reveal-form"
      hidden={['filter', filter]}
      label="Reason to search masked values"
      placeholder="e.g. customer asks about their order"
      submit="Search masked values too"
    />
  );
}

/**
 * Bulk actions over the list: ticked rows (their checkboxes belong to this form by `form=`) or every
 * dead letter matching the current filter, previewed before deciding.
 */
export function BulkActions({
  filter,
  matching,
  canArchive,
  canDiscard,
  canRedrive,
}: {
  filter: string;
  matching: string;
  canArchive: boolean;
  canDiscard: boolean;
  canRedrive: boolean;
}) {
  const [state, formProps, pending] = useActionForm(bulkAction, { keep: true });
  if (!canArchive && !canDiscard && !canRedrive) return null;
  return (
    <form id="bulk-form" {...formProps} className={`card ${styles.bulk}`} data-testid="bulk-actions">
      <input type="hidden" name="filter" value={filter} />
      <div className="inline" style={{ display: 'flex', gap: 12, flexWrap: 'wrap', alignItems: 'end' }}>
        <label>
          Selection
          <select name="scope" defaultValue="ids">
            <option value="ids">Ticked rows</option>
            <option value="filter">All {matching} matching the filter</option>
          </select>
        </label>
        <label>
          Reason
          <LimitedInput name="reason" limit={1000} placeholder="required to archive or discard" />
        </label>
        {canArchive ? (
          <>
            <button type="submit" name="intent" value="preview:archive" className="secondary" disabled={pending}>
              Preview archive
            </button>
            <button type="submit" name="intent" value="archive" disabled={pending}>
              Archive selection
            </button>
          </>
        ) : null}
        {canDiscard ? (
          <>
            <button type="submit" name="intent" value="preview:discard" className="secondary" disabled={pending}>
              Preview discard
            </button>
            <button type="submit" name="intent" value="discard" className="danger" disabled={pending}>
              Discard selection
            </button>
          </>
        ) : null}
        {canRedrive ? (
          <button type="submit" name="intent" value="redrive" className="secondary" disabled={pending}>
            Redrive selection…
          </button>
        ) : null}
        <FormStatus state={state} />
      </div>
    </form>
  );
}

'use client';
// The "Save view" form of the dead-letter list, the inbox and the audit trail, and the forms of /views.
import { useActionState } from 'react';
import type { ViewPage } from '@/lib/views/pages';
import { FormStatus } from '@/components/form-status';
import { deleteViewAction, saveViewAction, updateViewAction } from './actions';

/** Saves the filters the page shows now (its normalized query string) under a name. */
export function SaveViewForm({ page, filters, canShare }: { page: ViewPage; filters: string; canShare: boolean }) {
  const [state, action, pending] = useActionState(saveViewAction, {});
  return (
    <form action={action} className="inline" data-testid="save-view">
      <input type="hidden" name="page" value={page} />
      <input type="hidden" name="filters" value={filters} />
      <label>
        Save these filters as
        <input name="name" required maxLength={80} placeholder="e.g. my on-hold causes" />
      </label>
      {canShare ? (
        <label>
          <input type="checkbox" name="shared" /> share with my team
        </label>
      ) : null}
      <button type="submit" className="secondary" disabled={pending}>
        Save view
      </button>
      <FormStatus state={state} />
    </form>
  );
}

export function EditViewForm({ id, name, shared, canShare }: { id: string; name: string; shared: boolean; canShare: boolean }) {
  const [state, action, pending] = useActionState(updateViewAction, {});
  return (
    <form action={action} className="inline" data-testid="edit-view">
      <input type="hidden" name="id" value={id} />
      <label>
        Name
        <input name="name" required maxLength={80} defaultValue={name} />
      </label>
      {canShare ? (
        <label>
          <input type="checkbox" name="shared" defaultChecked={shared} /> shared with my team
        </label>
      ) : null}
      <button type="submit" className="secondary" disabled={pending}>
        Save
      </button>
      <FormStatus state={state} />
    </form>
  );
}

export function DeleteViewForm({ id }: { id: string }) {
  const [state, action, pending] = useActionState(deleteViewAction, {});
  return (
    <form action={action} className="inline" data-testid="delete-view">
      <input type="hidden" name="id" value={id} />
      <button type="submit" className="danger" disabled={pending}>
        Delete
      </button>
      <FormStatus state={state} />
    </form>
  );
}

'use client';
// The forms of /views (rename, share, delete). The "Save view" form the list pages show is in
// components/save-view-form.tsx.
import { useActionState } from 'react';
import { FormStatus } from '@/components/form-status';
import { deleteViewAction, updateViewAction } from './actions';

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

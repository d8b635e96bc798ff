'use client';
// The forms of /views (rename, share, delete). The "Save view" form the list pages show is in
// components/save-view-form.tsx.
import { FormStatus } from '@/components/form-status';
import { deleteViewAction, updateViewAction } from './actions';
import { useActionForm } from '@/components/use-action-form';
import { LimitedInput } from '@/components/limited-input';

export function EditViewForm({ id, name, shared, canShare }: { id: string; name: string; shared: boolean; canShare: boolean }) {
  const [state, formProps, pending] = useActionForm(updateViewAction);
  return (
    <form {...formProps} className="inline" data-testid="edit-view">
      <input type="hidden" name="id" value={id} />
      <label>
        Name
        <LimitedInput name="name" required limit={80} defaultValue={name} />
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
  const [state, formProps, pending] = useActionForm(deleteViewAction);
  return (
    <form {...formProps} className="inline" data-testid="delete-view">
      <input type="hidden" name="id" value={id} />
      <button type="submit" className="danger" disabled={pending}>
        Delete
      </button>
      <FormStatus state={state} />
    </form>
  );
}

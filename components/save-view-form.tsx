'use client';
// The "Save view" form of the dead-letter list, the inbox and the audit trail. Its action belongs to
// the /views route, which owns saved views.
import { saveViewAction } from '@/app/(dashboard)/views/actions';
import type { ViewPage } from '@/lib/saved-views/pages';
import { FormStatus } from '@/components/form-status';
import { useActionForm } from '@/components/use-action-form';
import { LimitedInput } from '@/components/limited-input';

/** Saves the filters the page shows now (its normalized query string) under a name. */
export function SaveViewForm({ page, filters, canShare }: { page: ViewPage; filters: string; canShare: boolean }) {
  const [state, formProps, pending] = useActionForm(saveViewAction);
  return (
    <form {...formProps} className="inline" data-testid="save-view">
      <input type="hidden" name="page" value={page} />
      <input type="hidden" name="filters" value={filters} />
      <label>
        Save these filters as
        <LimitedInput name="name" required limit={80} placeholder="e.g. my on-hold causes" />
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

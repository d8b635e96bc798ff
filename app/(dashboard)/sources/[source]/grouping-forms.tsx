'use client';
// The grouping-rules forms of the source page: the rules, and their re-application.
import { ActionForm } from '@/components/action-form';
import { FormStatus } from '@/components/form-status';
import { reapplyGroupingRulesAction, saveGroupingRulesAction } from './grouping-actions';
import { useActionForm } from '@/components/use-action-form';
import { LimitedInput } from '@/components/limited-input';

export function GroupingRulesForm({ source, paths, headers, positions }: { source: string; paths: string; headers: string; positions: string }) {
  const [state, formProps, pending] = useActionForm(saveGroupingRulesAction);
  return (
    <form {...formProps} data-testid="grouping-rules-form">
      <input type="hidden" name="source" value={source} />
      <div className="inline">
        <label>
          Group by payload paths
          <input name="paths" defaultValue={paths} placeholder="$.type" size={24} />
        </label>
        <label>
          and headers
          <input name="headers" defaultValue={headers} placeholder="x-message-type" size={20} />
        </label>
        <label>
          Variable token positions
          <input name="positions" defaultValue={positions} placeholder="e.g. 3" size={8} />
        </label>
      </div>
      <div className="inline">
        <label>
          Reason
          <LimitedInput name="reason" required limit={1000} size={40} placeholder="e.g. each message type fails for its own reason" />
        </label>
        <button type="submit" disabled={pending}>
          Save rules
        </button>
        <FormStatus state={state} />
      </div>
    </form>
  );
}

export function ReapplyGroupingForm({ source }: { source: string }) {
  return (
    <ActionForm action={reapplyGroupingRulesAction} submit="Re-apply to the open dead letters" buttonClassName="secondary" testId="reapply-grouping-form">
      <input type="hidden" name="source" value={source} />
      <label>
        Reason
        <LimitedInput name="reason" required limit={1000} size={30} placeholder="e.g. regroup the backlog" />
      </label>
    </ActionForm>
  );
}

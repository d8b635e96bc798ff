'use client';
// The redrive-rule forms of the source page: a new rule, and each rule's switch and delete.
import { ActionForm } from '@/components/action-form';
import { FormStatus } from '@/components/form-status';
import { createRedriveRuleAction, deleteRedriveRuleAction, toggleRedriveRuleAction } from './redrive-rules-actions';
import { useActionForm } from '@/components/use-action-form';
import { LimitedInput } from '@/components/limited-input';

export function NewRedriveRuleForm({ source }: { source: string }) {
  return (
    <ActionForm action={createRedriveRuleAction} submit="Add rule" testId="new-redrive-rule-form">
      <input type="hidden" name="source" value={source} />
      <label>
        Rule name
        <LimitedInput name="name" required limit={100} size={24} placeholder="e.g. after an outage" />
      </label>
      <label>
        When
        <select name="kind" defaultValue="after_wave">
          <option value="after_wave">the rate alarm has been OK for N minutes after a wave</option>
          <option value="on_resolved">a cluster is resolved with a fix version</option>
        </select>
      </label>
      <label>
        N (minutes, after a wave)
        <input name="okForMinutes" type="number" min={0.5} max={1440} step={0.5} defaultValue={10} size={6} />
      </label>
      <label>
        Rate (messages/s)
        <input name="ratePerSecond" type="number" min={1} max={5000} defaultValue={10} size={6} />
      </label>
      <label>
        <input name="canary" type="checkbox" defaultChecked /> Canary first
      </label>
    </ActionForm>
  );
}

export function RedriveRuleControls({ source, rule, name, enabled }: { source: string; rule: string; name: string; enabled: boolean }) {
  const [toggled, toggleForm, toggling] = useActionForm(toggleRedriveRuleAction);
  const [deleted, removeForm, removing] = useActionForm(deleteRedriveRuleAction);
  return (
    <span className="inline">
      <form {...toggleForm}>
        <input type="hidden" name="source" value={source} />
        <input type="hidden" name="rule" value={rule} />
        <input type="hidden" name="enabled" value={enabled ? 'false' : 'true'} />
        <button type="submit" className="secondary" disabled={toggling} aria-label={`${enabled ? 'Disable' : 'Enable'} rule ${name}`}>
          {enabled ? 'Disable' : 'Enable'}
        </button>
      </form>
      <form {...removeForm}>
        <input type="hidden" name="source" value={source} />
        <input type="hidden" name="rule" value={rule} />
        <button type="submit" className="secondary" disabled={removing} aria-label={`Delete rule ${name}`}>
          Delete
        </button>
      </form>
      <FormStatus state={toggled.error ? toggled : deleted} />
    </span>
  );
}

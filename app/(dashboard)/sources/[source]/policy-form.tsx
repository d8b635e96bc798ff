'use client';
// The source policy form: retention and deadline in the units people think in (days, hours).
import { FormStatus } from '@/components/form-status';
import { updatePolicyAction } from './actions';
import { useActionForm } from '@/components/use-action-form';

export interface PolicyFormValues {
  name: string;
  retentionSeconds: number;
  ageDeadlineSeconds: number;
  maxReceives: number;
  visibilityTimeoutMs: number;
  maxRedrives: number;
  approvalThreshold: number;
  editApprovalThreshold: number;
  redriveAllowedFrom: string[];
  alarmRatePending: number;
  alarmRateAlarm: number;
  redriveUrl: string | null;
  redriveSecretSet: boolean;
}

export function PolicyForm({ policy }: { policy: PolicyFormValues }) {
  const [state, formProps, pending] = useActionForm(updatePolicyAction);
  return (
    <form {...formProps} className="inline" data-testid="policy-form">
      <input type="hidden" name="source" value={policy.name} />
      <label>
        Retention (days)
        <input name="retentionDays" type="number" min="0.05" step="any" defaultValue={+(policy.retentionSeconds / 86_400).toFixed(3)} required />
      </label>
      <label>
        Age deadline (hours)
        <input name="ageDeadlineHours" type="number" min="0.02" step="any" defaultValue={+(policy.ageDeadlineSeconds / 3600).toFixed(2)} required />
      </label>
      <label>
        Max receives
        <input name="maxReceives" type="number" min="1" step="1" defaultValue={policy.maxReceives} required />
      </label>
      <label>
        Visibility timeout (s)
        <input name="visibilityTimeoutSeconds" type="number" min="1" step="any" defaultValue={policy.visibilityTimeoutMs / 1000} required />
      </label>
      <label>
        Max redrives
        <input name="maxRedrives" type="number" min="0" step="1" defaultValue={policy.maxRedrives} required />
      </label>
      <label>
        Approval threshold
        <input name="approvalThreshold" type="number" min="1" step="1" defaultValue={policy.approvalThreshold} required />
      </label>
      <label title="Edits and transforms of this many dead letters or more wait for a second person">
        Edit approval from (dead letters)
        <input name="editApprovalThreshold" type="number" min="1" step="1" defaultValue={policy.editApprovalThreshold} required />
      </label>
      <label title="Sources of the same kind whose dead letters may be redriven into this one">
        Accepts redrives from (sources, comma-separated)
        <input name="redriveAllowedFrom" defaultValue={policy.redriveAllowedFrom.join(', ')} placeholder="none" />
      </label>
      <label>
        Rate alarm pending at (per 5 min)
        <input name="alarmRatePending" type="number" min="1" step="1" defaultValue={policy.alarmRatePending} required />
      </label>
      <label>
        Rate alarm at (per 5 min)
        <input name="alarmRateAlarm" type="number" min="2" step="1" defaultValue={policy.alarmRateAlarm} required />
      </label>
      <label>
        Redrive URL
        <input name="redriveUrl" type="url" defaultValue={policy.redriveUrl ?? ''} placeholder="none" />
      </label>
      <label>
        Redrive secret
        <input name="redriveSecret" type="password" autoComplete="new-password" placeholder={policy.redriveSecretSet ? 'set: blank keeps it' : 'none'} />
      </label>
      <button type="submit" disabled={pending}>
        Save policy
      </button>
      <FormStatus state={state} />
      {(state.ok ? state.warnings : undefined)?.map((w) => (
        <span key={w} className="badge warn" data-testid="policy-warning">
          {w}
        </span>
      ))}
    </form>
  );
}

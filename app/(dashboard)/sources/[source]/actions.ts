'use server';
// The policy form's action: the action client (guard, form, errors), then the same lib/ function as
// PATCH /api/v1/sources/:source/policy.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import { updateSourcePolicy } from '@/lib/sources/update-policy';

/** The form asks in the units people think in (days, hours, seconds); the policy keeps these. */
const scaled = (unit: number) => form.optional.transform((v) => (v === undefined ? undefined : Math.round(Number(v) * unit)));

const policyForm = z.object({
  source: form.text,
  retentionDays: scaled(86_400),
  ageDeadlineHours: scaled(3600),
  maxReceives: scaled(1),
  visibilityTimeoutSeconds: scaled(1000),
  maxRedrives: scaled(1),
  approvalThreshold: scaled(1),
  alarmRatePending: scaled(1),
  alarmRateAlarm: scaled(1),
  editApprovalThreshold: scaled(1),
  // Sources that may redrive into this one, comma-separated; a form without the field keeps the list.
  redriveAllowedFrom: z
    .string()
    .optional()
    .transform((v) => v?.split(/[,\s]+/).filter(Boolean)),
  redriveUrl: form.optional,
  // Blank keeps the secret that is set.
  redriveSecret: form.optional,
});

export const updatePolicyAction = action('sources.policy', policyForm, async (f, { actor }) => {
  const r = await updateSourcePolicy(actor, f.source, {
    retentionSeconds: f.retentionDays,
    ageDeadlineSeconds: f.ageDeadlineHours,
    maxReceives: f.maxReceives,
    visibilityTimeoutMs: f.visibilityTimeoutSeconds,
    maxRedrives: f.maxRedrives,
    approvalThreshold: f.approvalThreshold,
    alarmRatePending: f.alarmRatePending,
    alarmRateAlarm: f.alarmRateAlarm,
    editApprovalThreshold: f.editApprovalThreshold,
    ...(f.redriveAllowedFrom ? { redriveAllowedFrom: f.redriveAllowedFrom } : {}),
    redriveUrl: f.redriveUrl ?? null,
    ...(f.redriveSecret ? { redriveSecret: f.redriveSecret } : {}),
  });
  revalidatePath('/sla');
  revalidatePath(`/sources/${encodeURIComponent(f.source)}`);
  return { message: 'Policy saved', warnings: r.warnings.map((w) => w.message) };
});

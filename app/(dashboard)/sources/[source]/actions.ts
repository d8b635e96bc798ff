'use server';
// The policy form's action: the action client (guard, form, errors), then the same lib/ function as
// PATCH /api/v1/sources/:source/policy.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import { updateSourcePolicy } from '@/lib/sources/update-policy';

/** The form asks in the units people think in (days, hours, seconds); the policy keeps these. */
const scaled = (unit: number) => form.optional.transform((v) => (v === undefined ? undefined : Math.round(Number(v) * unit)));
/** A count (receives, redrives, dead letters): the number as typed. */
const count = scaled(1);

const policyForm = z.object({
  source: form.text,
  retentionDays: scaled(86_400),
  ageDeadlineHours: scaled(3600),
  maxReceives: count,
  visibilityTimeoutSeconds: scaled(1000),
  maxRedrives: count,
  approvalThreshold: count,
  alarmRatePending: count,
  alarmRateAlarm: count,
  editApprovalThreshold: count,
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
  // The counts go as they are (the form names them as the policy does); the scaled ones are renamed.
  const { source, retentionDays, ageDeadlineHours, visibilityTimeoutSeconds, redriveAllowedFrom, redriveUrl, redriveSecret, ...counts } = f;
  const r = await updateSourcePolicy(actor, source, {
    ...counts,
    retentionSeconds: retentionDays,
    ageDeadlineSeconds: ageDeadlineHours,
    visibilityTimeoutMs: visibilityTimeoutSeconds,
    ...(redriveAllowedFrom ? { redriveAllowedFrom } : {}),
    redriveUrl: redriveUrl ?? null,
    ...(redriveSecret ? { redriveSecret } : {}),
  });
  revalidatePath('/sla');
  revalidatePath(`/sources/${encodeURIComponent(source)}`);
  return { message: 'Policy saved', warnings: r.warnings.map((w) => w.message) };
});

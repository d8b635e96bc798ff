'use server';
// The policy form's action: guard, then the same lib/ function as PATCH /api/v1/sources/:source/policy.
import { revalidatePath } from 'next/cache';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { updateSourcePolicy, type PolicyInput } from '@/lib/sources/update-policy';

export interface PolicyState {
  ok?: string;
  error?: string;
  warnings?: string[];
}

const str = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};
const scaled = (f: FormData, k: string, unit: number) => {
  const v = str(f, k);
  return v === undefined ? undefined : Math.round(Number(v) * unit);
};

export async function updatePolicyAction(_: PolicyState, f: FormData): Promise<PolicyState> {
  try {
    const actor = await actionActor('sources.policy');
    const source = str(f, 'source') ?? '';
    const secret = str(f, 'redriveSecret');
    const input: PolicyInput = {
      retentionSeconds: scaled(f, 'retentionDays', 86_400),
      ageDeadlineSeconds: scaled(f, 'ageDeadlineHours', 3600),
      maxReceives: scaled(f, 'maxReceives', 1),
      visibilityTimeoutMs: scaled(f, 'visibilityTimeoutSeconds', 1000),
      maxRedrives: scaled(f, 'maxRedrives', 1),
      approvalThreshold: scaled(f, 'approvalThreshold', 1),
      alarmRatePending: scaled(f, 'alarmRatePending', 1),
      alarmRateAlarm: scaled(f, 'alarmRateAlarm', 1),
      editApprovalThreshold: scaled(f, 'editApprovalThreshold', 1),
      // Sources that may redrive into this one, comma-separated; a form without the field keeps the list.
      ...(f.has('redriveAllowedFrom')
        ? { redriveAllowedFrom: String(f.get('redriveAllowedFrom')).split(/[,\s]+/).map((s) => s.trim()).filter(Boolean) }
        : {}),
      redriveUrl: str(f, 'redriveUrl') ?? null,
      ...(secret ? { redriveSecret: secret } : {}),
    };
    const r = await updateSourcePolicy(actor, source, input);
    revalidatePath('/sla');
    revalidatePath(`/sources/${encodeURIComponent(source)}`);
    return { ok: 'Policy saved', warnings: r.warnings.map((w) => w.message) };
  } catch (e) {
    if (e instanceof AppError) return { error: e.message };
    if (e instanceof ZodError) return { error: e.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') };
    throw e;
  }
}

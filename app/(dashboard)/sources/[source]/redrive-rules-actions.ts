'use server';
// A source's redrive rules (issue 17): create, enable / disable, delete. Guard, then the same lib/
// functions as POST /api/v1/sources/:source/redrive-rules and PATCH/DELETE …/:rule.
import { revalidatePath } from 'next/cache';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { createRedriveRule, deleteRedriveRule, updateRedriveRule, type RuleKind } from '@/lib/redrive-rules';

export interface RuleState {
  ok?: string;
  error?: string;
}

const text = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' ? v.trim() : '';
};

function failure(e: unknown): RuleState {
  if (e instanceof AppError) return { error: e.message };
  if (e instanceof ZodError) return { error: e.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ') };
  throw e;
}

const refresh = (source: string) => revalidatePath(`/sources/${encodeURIComponent(source)}`);

/** The form says "OK for N minutes" (decimals allowed); the rule keeps seconds. */
export async function createRedriveRuleAction(_: RuleState, f: FormData): Promise<RuleState> {
  try {
    const actor = await actionActor('redrive.rules');
    const source = text(f, 'source');
    const kind = text(f, 'kind') as RuleKind;
    const minutes = text(f, 'okForMinutes');
    const rule = await createRedriveRule(actor, source, {
      name: text(f, 'name'),
      kind,
      ...(kind === 'after_wave' ? { okForSeconds: minutes === '' ? Number.NaN : Math.round(Number(minutes) * 60) } : {}),
      ratePerSecond: Number(text(f, 'ratePerSecond') || '10'),
      canary: f.get('canary') === 'on',
    });
    refresh(source);
    return { ok: `Rule "${rule.name}" created` };
  } catch (e) {
    return failure(e);
  }
}

export async function toggleRedriveRuleAction(_: RuleState, f: FormData): Promise<RuleState> {
  try {
    const actor = await actionActor('redrive.rules');
    const source = text(f, 'source');
    const enabled = text(f, 'enabled') === 'true';
    await updateRedriveRule(actor, source, text(f, 'rule'), { enabled });
    refresh(source);
    return { ok: enabled ? 'Enabled' : 'Disabled' };
  } catch (e) {
    return failure(e);
  }
}

export async function deleteRedriveRuleAction(_: RuleState, f: FormData): Promise<RuleState> {
  try {
    const actor = await actionActor('redrive.rules');
    const source = text(f, 'source');
    await deleteRedriveRule(actor, source, text(f, 'rule'));
    refresh(source);
    return { ok: 'Deleted' };
  } catch (e) {
    return failure(e);
  }
}

'use server';
// A source's redrive rules: create, enable / disable, delete. The action client (guard,
// form, errors), then the same lib/ functions as POST /api/v1/sources/:source/redrive-rules and PATCH/DELETE …/:rule.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import { RULE_KINDS, createRedriveRule, deleteRedriveRule, updateRedriveRule } from '@/lib/redrive-rules';

const refresh = (source: string) => revalidatePath(`/sources/${encodeURIComponent(source)}`);

const ruleForm = z.object({
  source: form.text,
  name: form.text,
  kind: form.choice(RULE_KINDS),
  okForMinutes: form.text,
  ratePerSecond: form.text,
  canary: form.checkbox,
});

/** The form says "OK for N minutes" (decimals allowed); the rule keeps seconds. */
export const createRedriveRuleAction = action('redrive.rules', ruleForm, async (f, { actor }) => {
  const { kind } = f;
  const rule = await createRedriveRule(actor, f.source, {
    name: f.name,
    kind,
    ...(kind === 'after_wave' ? { okForSeconds: f.okForMinutes === '' ? Number.NaN : Math.round(Number(f.okForMinutes) * 60) } : {}),
    ratePerSecond: Number(f.ratePerSecond || '10'),
    canary: f.canary,
  });
  refresh(f.source);
  return { message: `Rule "${rule.name}" created` };
});

export const toggleRedriveRuleAction = action(
  'redrive.rules',
  z.object({ source: form.text, rule: form.text, enabled: form.flag }),
  async ({ source, rule, enabled }, { actor }) => {
    await updateRedriveRule(actor, source, rule, { enabled });
    refresh(source);
    return { message: enabled ? 'Enabled' : 'Disabled' };
  },
);

export const deleteRedriveRuleAction = action('redrive.rules', z.object({ source: form.text, rule: form.text }), async ({ source, rule }, { actor }) => {
  await deleteRedriveRule(actor, source, rule);
  refresh(source);
  return { message: 'Deleted' };
});

'use server';
// A source's grouping rules (issue 16): save them, re-apply them to the open dead letters. Guard,
// then the same lib/ functions as PUT /api/v1/sources/:source/grouping-rules and …/reapply.
import { revalidatePath } from 'next/cache';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import type { GroupByField } from '@/lib/clustering/grouping-rules';
import { startRegroup } from '@/lib/clustering/regroup';
import { setGroupingRules } from '@/lib/clustering/set-grouping-rules';
import { AppError } from '@/lib/errors';

export interface GroupingState {
  ok?: string;
  error?: string;
}

const text = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' ? v.trim() : '';
};
const list = (v: string) =>
  v
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

function failure(e: unknown): GroupingState {
  if (e instanceof AppError) return { error: e.message };
  if (e instanceof ZodError) return { error: e.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ') };
  throw e;
}

/** Payload paths and header names, comma-separated; positions as numbers. Empty fields: no rules. */
export async function saveGroupingRulesAction(_: GroupingState, f: FormData): Promise<GroupingState> {
  try {
    const actor = await actionActor('sources.grouping');
    const source = text(f, 'source');
    const groupBy: GroupByField[] = [
      ...list(text(f, 'paths')).map((path) => ({ field: 'payload' as const, path })),
      ...list(text(f, 'headers')).map((name) => ({ field: 'header' as const, name })),
    ];
    const variablePositions = list(text(f, 'positions')).map(Number);
    const rules = groupBy.length || variablePositions.length ? { groupBy, variablePositions } : null;
    const r = await setGroupingRules(actor, source, { rules, reason: text(f, 'reason') });
    revalidatePath(`/sources/${source}`);
    return { ok: `Saved (version ${r.version}): new dead letters are grouped by ${r.rules ? 'these rules' : 'the fingerprint alone'}.` };
  } catch (e) {
    return failure(e);
  }
}

export async function reapplyGroupingRulesAction(_: GroupingState, f: FormData): Promise<GroupingState> {
  try {
    const actor = await actionActor('sources.grouping');
    const source = text(f, 'source');
    const run = await startRegroup(actor, source, { reason: text(f, 'reason') });
    revalidatePath(`/sources/${source}`);
    return { ok: `Re-applying to ${run.total.toLocaleString('en')} open dead letters, in batches.` };
  } catch (e) {
    return failure(e);
  }
}

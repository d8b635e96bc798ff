'use server';
// A source's grouping rules: save them, re-apply them to the open dead letters. The action
// client (guard, form, errors), then the same lib/ functions as PUT /api/v1/sources/:source/grouping-rules and …/reapply.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import type { GroupByField } from '@/lib/clustering/grouping-rules';
import { startRegroup } from '@/lib/clustering/regroup';
import { setGroupingRules } from '@/lib/clustering/set-grouping-rules';

/** A comma- or space-separated field as its items. */
const list = form.text.transform((v) =>
  v
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean),
);

/** Payload paths and header names, comma-separated; positions as numbers. Empty fields: no rules. */
export const saveGroupingRulesAction = action(
  'sources.grouping',
  z.object({ source: form.text, paths: list, headers: list, positions: list, reason: form.text }),
  async ({ source, paths, headers, positions, reason }, { actor }) => {
    const groupBy: GroupByField[] = [
      ...paths.map((path) => ({ field: 'payload' as const, path })),
      ...headers.map((name) => ({ field: 'header' as const, name })),
    ];
    const variablePositions = positions.map(Number);
    const rules = groupBy.length || variablePositions.length ? { groupBy, variablePositions } : null;
    const r = await setGroupingRules(actor, source, { rules, reason });
    revalidatePath(`/sources/${source}`);
    return { message: `Saved (version ${r.version}): new dead letters are grouped by ${r.rules ? 'these rules' : 'the fingerprint alone'}.` };
  },
);

export const reapplyGroupingRulesAction = action(
  'sources.grouping',
  z.object({ source: form.text, reason: form.text }),
  async ({ source, reason }, { actor }) => {
    const run = await startRegroup(actor, source, { reason });
    revalidatePath(`/sources/${source}`);
    return { message: `Re-applying to ${run.total.toLocaleString('en')} open dead letters, in batches.` };
  },
);

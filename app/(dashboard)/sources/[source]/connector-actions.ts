'use server';
// The connector panel's actions: the action client (guard, form, errors), then the same lib/
// functions as POST /api/v1/sources/:source/connection-test and …/import/pause|resume.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import { setImportPaused } from '@/lib/connectors/pause-import';
import { testConnection, type ConnectionTestResult } from '@/lib/connectors/test-connection';

/** What "test connection" learnt; a probe that failed is a report with ok: false, not an error. */
export type ConnectionReport = Pick<ConnectionTestResult, 'ok' | 'summary' | 'facts' | 'error' | 'warnings' | 'traps'> & { testedAt: string };

export const testConnectionAction = action('sources.import', z.object({ source: form.text }), async ({ source }, { actor }) => {
  const r = await testConnection(actor, source);
  const report: ConnectionReport = {
    ok: r.ok,
    summary: r.summary,
    facts: r.facts,
    ...(r.error ? { error: r.error } : {}),
    ...(r.warnings ? { warnings: r.warnings } : {}),
    ...(r.traps ? { traps: r.traps } : {}),
    testedAt: r.testedAt.toISOString(),
  };
  return { report };
});

export const setImportPausedAction = action(
  'sources.import',
  z.object({ source: form.text, paused: form.flag, reason: form.optional }),
  async ({ source, paused, reason }, { actor }) => {
    const r = await setImportPaused(actor, source, paused, reason ?? null);
    revalidatePath(`/sources/${encodeURIComponent(r.name)}`);
    return { message: r.importPaused ? 'Import paused: messages wait on the broker' : 'Import resumed' };
  },
);

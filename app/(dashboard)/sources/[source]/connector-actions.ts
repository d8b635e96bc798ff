'use server';
// The connector panel's actions: guard, then the same lib/ functions as POST
// /api/v1/sources/:source/connection-test and …/import/pause|resume.
import { revalidatePath } from 'next/cache';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import { setImportPaused } from '@/lib/connectors/pause-import';
import { testConnection, type ConnectionTestResult } from '@/lib/connectors/test-connection';
import { AppError } from '@/lib/errors';

export interface ConnectorState {
  ok?: string;
  error?: string;
  /** What "test connection" learnt; a probe that failed is a report with ok: false, not an error. */
  report?: Pick<ConnectionTestResult, 'ok' | 'summary' | 'facts' | 'error' | 'warnings'> & { testedAt: string };
}

const str = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};

async function run(fn: () => Promise<ConnectorState>): Promise<ConnectorState> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AppError) return { error: e.message };
    if (e instanceof ZodError) return { error: e.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') };
    throw e;
  }
}

export async function testConnectionAction(_: ConnectorState, f: FormData): Promise<ConnectorState> {
  return run(async () => {
    const actor = await actionActor('sources.import');
    const r = await testConnection(actor, str(f, 'source') ?? '');
    return { report: { ok: r.ok, summary: r.summary, facts: r.facts, ...(r.error ? { error: r.error } : {}), ...(r.warnings ? { warnings: r.warnings } : {}), testedAt: r.testedAt.toISOString() } };
  });
}

export async function setImportPausedAction(_: ConnectorState, f: FormData): Promise<ConnectorState> {
  return run(async () => {
    const actor = await actionActor('sources.import');
    const paused = str(f, 'paused') === 'true';
    const r = await setImportPaused(actor, str(f, 'source') ?? '', paused, str(f, 'reason') ?? null);
    revalidatePath(`/sources/${encodeURIComponent(r.name)}`);
    return { ok: r.importPaused ? 'Import paused: messages wait on the broker' : 'Import resumed' };
  });
}

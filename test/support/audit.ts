// What a superuser can do to the audit trail behind its append-only triggers: run SQL with them
// switched off. The tamper-evidence tests use it to play the forger.
import { db } from '@/lib/db';

export async function asSuperuser(...statements: string[]): Promise<void> {
  await db().$transaction([
    db().$executeRawUnsafe('ALTER TABLE audit_events DISABLE TRIGGER USER'),
    ...statements.map((s) => db().$executeRawUnsafe(s)),
    db().$executeRawUnsafe('ALTER TABLE audit_events ENABLE TRIGGER USER'),
  ]);
}

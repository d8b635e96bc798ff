// One stored version of an edited dead letter, its exact bytes for download. The same reveal rules
// as the original: the version's own bytes are scanned with the source's policy, and a version of a
// masked original is masked too (an edit may move a value the scan no longer recognizes).
import { z } from 'zod';
import type { Principal } from '@/lib/auth';
import { db } from '@/lib/db';
import { notFound } from '@/lib/errors';
import { maskStoredPayload } from '@/lib/masking';
import { getDeadLetterPayload, maskedView } from '@/lib/deadletters/get-dead-letter';

export interface VersionPayload {
  deadLetterId: bigint;
  version: number;
  payload: Buffer;
  contentType: string | null;
  sha256: string;
  /** Whether the exact bytes need a reveal. */
  masked: boolean;
}

export async function getVersionPayload(actor: Principal, idParam: string, versionParam: string): Promise<VersionPayload> {
  // The dead letter's scope check (404 for another team's), and the original's masking.
  const original = await getDeadLetterPayload(actor, idParam);
  const version = z.coerce.number().int().min(1).max(2_147_483_647).safeParse(versionParam);
  if (!version.success) throw notFound('No such version');
  const v = await db().deadLetterVersion.findUnique({
    where: { deadLetterId_version: { deadLetterId: original.id, version: version.data } },
    select: { version: true, payload: true, contentType: true, payloadSha256: true },
  });
  if (!v) throw notFound('No such version');
  const payload = Buffer.from(v.payload);
  const originalMasked = original.payload ? maskedView({ ...original, payload: original.payload }).state !== 'clear' : original.verdict !== false;
  const masked = originalMasked || maskStoredPayload(payload, original.policy, null, false).state !== 'clear';
  return { deadLetterId: original.id, version: v.version, payload, contentType: v.contentType, sha256: v.payloadSha256, masked };
}

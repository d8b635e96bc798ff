// Who sees masked values: every role without `payload.reveal` (docs/design.md "Roles and
// permissions": the auditor), in lists, payload views, exports and audit details. A role with it sees values masked in lists
// too and reveals one payload at a time, with a reason, as an audited action (lib/deadletters).
import { z } from 'zod';
import type { Principal } from '@/lib/auth';
import { NEVER_FOR_ASSISTANT, scopeFor } from '@/lib/auth/permissions';
import { parseJsonPath } from './json-path';

export function canReveal(actor: Principal): boolean {
  if ('system' in actor) return true;
  return !(actor.via === 'assistant' && NEVER_FOR_ASSISTANT.has('payload.reveal')) && scopeFor(actor.role, 'payload.reveal') !== undefined;
}

/** A source's `sensitivePaths` column, validated: each entry must parse as a JSON path. */
export const sensitivePathsSchema = z
  .array(
    z
      .string()
      .max(500)
      .superRefine((p, ctx) => {
        try {
          parseJsonPath(p);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: (e as Error).message });
        }
      }),
  )
  .max(100);

/** The paths stored on a source; entries that no longer parse are skipped rather than failing a view. */
export function sensitivePathsOf(stored: unknown): string[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter((p): p is string => {
    if (typeof p !== 'string') return false;
    try {
      parseJsonPath(p);
      return true;
    } catch {
      return false;
    }
  });
}

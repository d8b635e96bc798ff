// The selection a redrive page was opened with (?cluster=, ?ids=, ?source=, ?selection=), read the same
// way by /redrives/new and /redrives/transform: a selection, or the reason there is none.
import { AppError } from '@/lib/errors';
import type { RedriveSelectionInput } from '@/lib/redrive';
import { selectionFromQuery } from '@/lib/redrive/route-shapes';

export function selectionFromPage(sp: Record<string, string | undefined>): { selection: RedriveSelectionInput | null; problem: string | null } {
  try {
    return {
      selection: selectionFromQuery(new URLSearchParams(Object.entries(sp).filter((e): e is [string, string] => typeof e[1] === 'string'))),
      problem: null,
    };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return { selection: null, problem: e.message };
  }
}

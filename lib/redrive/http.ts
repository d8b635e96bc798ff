// HTTP shapes of the redrive routes: the preview's query string, the cap of command bodies (which may be empty).
import { z } from 'zod';
import { AppError } from '@/lib/errors';
import type { RedriveSelectionInput } from './selection';

/**
 * The selection a preview asks about: `selection=<JSON>` (any kind, filters included), or the short
 * forms `ids=1,2,3`, `cluster=<uuid>[&source=<name>]`, `source=<name>`.
 */
export function selectionFromQuery(params: URLSearchParams): RedriveSelectionInput {
  const json = params.get('selection');
  if (json) {
    try {
      return JSON.parse(json) as RedriveSelectionInput;
    } catch {
      throw new AppError('bad_request', 'selection is not valid JSON', { field: 'selection' });
    }
  }
  const ids = params.get('ids');
  const cluster = params.get('cluster');
  const source = params.get('source');
  if (ids) return { ids: ids.split(',').map((s) => s.trim()).filter(Boolean) };
  if (cluster) return source ? { cluster, source } : { cluster };
  if (source) return { source };
  throw new AppError('bad_request', 'Say what to preview: selection, ids, cluster or source', { field: 'selection' });
}

/** GET /api/v1/redrives/preview's query string, read as selectionFromQuery reads it (a 400 names what is missing). */
export const selectionQuery = z.record(z.string(), z.string()).transform((q) => selectionFromQuery(new URLSearchParams(q)));

/** A command's body ({ reason? }): optional (an empty POST is fine), small. */
export const COMMAND_MAX_BYTES = 16 << 10;

// HTTP shapes of the redrive routes: the preview's query string, command bodies that may be empty.
import { AppError } from '@/lib/errors';
import { readJsonBody } from '@/lib/http';
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

/** A command's body ({ reason? }): optional, so an empty POST is fine. */
export async function commandBody(req: Request): Promise<unknown> {
  const empty = req.headers.get('content-length') === '0' || (!req.headers.get('content-type') && !req.body);
  return empty ? {} : readJsonBody(req, 16 << 10);
}

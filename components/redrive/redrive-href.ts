// A link to the start-redrive page for a selection, for any page (server or client) to offer
// "Redrive…": the page previews the count before anything starts.
import type { RedriveSelectionInput } from '@/lib/redrive';

export function redriveHref(selection: RedriveSelectionInput): string {
  if ('source' in selection && !('cluster' in selection)) return `/redrives/new?${new URLSearchParams({ source: selection.source })}`;
  if ('cluster' in selection)
    return `/redrives/new?${new URLSearchParams({ cluster: selection.cluster, ...(selection.source ? { source: selection.source } : {}) })}`;
  if ('ids' in selection) return `/redrives/new?${new URLSearchParams({ ids: selection.ids.join(',') })}`;
  return `/redrives/new?${new URLSearchParams({ selection: JSON.stringify(selection) })}`;
}

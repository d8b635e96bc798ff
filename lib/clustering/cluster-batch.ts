// Clusters a batch of errors (the CLI, a backfill, a re-cluster job): fingerprints each one, then
// merges templates over the whole batch. The keys of templates left unmerged are their fingerprint
// keys, so a batch agrees with ingest wherever the merger had nothing to add.

import { fingerprint, type ErrorInput } from './fingerprint';
import { TemplateMerger, type TemplateMergerOptions } from './template-merger';

export interface ClusterBatchOptions extends TemplateMergerOptions {
  /** false: ingest fingerprints only, no second stage (default true). */
  merge?: boolean;
}

/** One cluster key per error, in order. */
export function clusterBatch(errors: Iterable<ErrorInput>, options: ClusterBatchOptions = {}): string[] {
  if (options.merge === false) return Array.from(errors, (error) => fingerprint(error).key);
  const merger = new TemplateMerger(options);
  const handles: number[] = [];
  for (const error of errors) handles.push(merger.add({ type: error.type, ...fingerprint(error) }));
  return handles.map((handle) => merger.clusterKeyOf(handle));
}

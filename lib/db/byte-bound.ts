// One rule for batches bounded by bytes, not rows: a batch takes rows in order while
// their sizes fit the bound, and the first row always goes, so a single row larger than the bound
// still moves (alone). The redrive claim applies the same rule in SQL inside its UPDATE
// (lib/redrive/run-task.ts); readers that size rows first and fetch them after use this.

/** How many of the leading `sizes` one batch takes under `maxBytes`. */
export function takeWithinBytes(sizes: readonly number[], maxBytes: number): number {
  let take = 0;
  for (let bytes = 0; take < sizes.length && (take === 0 || bytes + sizes[take]! <= maxBytes); take++) bytes += sizes[take]!;
  return take;
}

// zod's issues in the one shape every caller words them from: the API's details.issues, an MCP
// tool's error, a refused job payload, a bad connection or environment. zod's messages name what
// was expected, never the value refused, so they are safe for secrets too.
type ZodIssueLike = { path: readonly PropertyKey[]; message: string };

/** Each issue with its path dotted (`connection.queue`), under `prefix` when given. */
export function issueList(issues: readonly ZodIssueLike[], prefix?: string): { path: string; message: string }[] {
  return issues.map((i) => ({ path: [...(prefix ? [prefix] : []), ...i.path.map(String)].join('.'), message: i.message }));
}

/**
 * The issues in one line: `path: message`, joined by '; ' (the first `max` only). An issue about the
 * whole input has no path: `whole` names it, else the message stands alone.
 */
export function issueText(issues: readonly ZodIssueLike[], opts: { prefix?: string; max?: number; whole?: string } = {}): string {
  return issueList(issues.slice(0, opts.max), opts.prefix)
    .map((i) => (i.path || opts.whole ? `${i.path || opts.whole}: ${i.message}` : i.message))
    .join('; ');
}

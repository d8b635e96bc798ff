// Imported first by the triage CLI: `triage mcp` speaks the protocol on stdout, so its log lines go
// to stderr. Set before lib/env is first read, which happens when lib/log is imported.
if (process.argv.slice(2).find((a) => !a.startsWith('-')) === 'mcp') process.env.LOG_TO ??= 'stderr';

export {};

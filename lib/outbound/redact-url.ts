// An outbound URL as the audit trail and read-only views show it: scheme and host (with port) only.
// A Slack-style webhook URL is a bearer secret, and a redrive URL may carry a token in its path or
// query; the host is enough to tell which receiver a change concerns.

export function redactUrl(url: string | null | undefined): string | null {
  if (url == null) return null;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '[unparseable URL]';
  }
}

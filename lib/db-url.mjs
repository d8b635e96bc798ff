// libpq fills in the OS user when a connection URL names none; node-postgres reads $USER instead,
// which is empty under some service managers and CI. Apply libpq's rule once, here. Plain JS so
// the CLI scripts (node) and the app (TypeScript) share it.
import { userInfo } from 'node:os';

export function withDefaultUser(url) {
  const u = new URL(url);
  if (!u.username) u.username = process.env.PGUSER || userInfo().username;
  return u.toString();
}

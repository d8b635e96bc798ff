// Waiting for an asynchronous outcome by polling, never a fixed sleep; no imports, so a test that
// sets its environment before loading lib/ can use it too.

/** Polls `check` every `everyMs` until it answers something other than undefined or false. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, type APIRequestContext, type Browser, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { createUser } from '@/lib/admin/users';
import { SYSTEM, type Role } from '@/lib/auth';
import { DEMO_PASSWORD } from '../../prisma/seed';
import { unique } from '../security/fixtures';

// Per port, so side-by-side e2e runs (each on its own port) keep their sign-ins apart.
const run = process.env.E2E_PORT ?? 'default';

export const stateFile = (email: string) => path.join('test-results', '.auth', run, `${email}.json`);
export const as = (email: string) => ({ storageState: stateFile(email) });

/** A page of its own as a demo user (their stored sign-in), beside the test's own; `close` ends its context. */
export async function pageAs(browser: Browser, email: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext(as(email));
  return { page: await context.newPage(), close: () => context.close() };
}

/**
 * The audit trail at `path` (`/audit?…`) as the demo's auditor reads it, in a context of its own:
 * its table shows each of `texts`, and the chain verifies.
 */
export async function expectAuditTrail(browser: Browser, path: string, texts: string[]): Promise<void> {
  const auditor = await pageAs(browser, 'auditor@triage.local');
  await auditor.page.goto(path);
  const trail = auditor.page.getByTestId('audit-table');
  for (const text of texts) await expect(trail).toContainText(text);
  const verify = await auditor.page.request.get('/api/v1/audit/verify');
  expect(verify.status()).toBe(200);
  expect(await verify.json()).toMatchObject({ ok: true });
  await auditor.close();
}

/** `npm run --silent triage -- … --json` (the same environment as the app and workers): its last line, parsed. */
export function triage(...args: string[]): Record<string, unknown> {
  const r = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts', ...args, '--json'], { encoding: 'utf8', env: process.env });
  if (r.status !== 0) throw new Error(`triage ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

/** A new browser context signed in through the sign-in form (not a stored state), and its page. */
export async function signInThroughForm(browser: Browser, email: string, password: string, extraHTTPHeaders?: Record<string, string>) {
  // Signed out whatever the spec's storageState: /sign-in sends a signed-in person to their home page.
  const context = await browser.newContext({ extraHTTPHeaders, storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return { context, page };
}

/**
 * A user of its own (a unique e-mail named after `name`, `role`), signed in through the form: for a
 * test that changes the user or its sessions, or finds what it did on the trail by its actor.
 */
export async function signInNewUser(browser: Browser, name: string, role: Role) {
  const email = `${unique(name)}@triage.local`;
  const password = `${name}-password`;
  const user = await createUser(SYSTEM, { email, role, password });
  const { context, page } = await signInThroughForm(browser, email, password);
  return { user, email, password, context, page };
}

/** Waits for the redrive task page a form leads to; resolves with the task's id. */
export async function redriveTaskOpened(page: Page): Promise<string> {
  await expect(page).toHaveURL(/\/redrives\/[0-9a-f-]{36}$/);
  return page.url().split('/').pop()!;
}

/** Fills a form's fields by their labels and sends it with the button named `button`; resolves with the form. */
export async function submitForm(form: Locator, fields: Record<string, string>, button: string): Promise<Locator> {
  for (const [label, value] of Object.entries(fields)) await form.getByLabel(label).fill(value);
  await form.getByRole('button', { name: button }).click();
  return form;
}

/**
 * Creates a source on /admin's form as an admin does: its name, team and kind, then the kind's own
 * fields by their exact labels; resolves with the form once it answers that the source was created.
 */
export async function createSourceOnAdminPage(
  page: Page,
  source: { name: string; team: string; kind: string; fields: Record<string, string> },
): Promise<Locator> {
  await page.goto('/admin');
  const form = page.getByTestId('create-source');
  await form.getByLabel('Name').fill(source.name);
  await form.getByLabel('Team').selectOption(source.team);
  await form.getByLabel('Kind').selectOption(source.kind);
  for (const [label, value] of Object.entries(source.fields)) await form.getByLabel(label, { exact: true }).fill(value);
  await form.getByRole('button', { name: 'Create source' }).click();
  await expect(form.getByRole('status')).toHaveText(`Source ${source.name} created`);
  return form;
}

/** The on-call phone (an iPhone 12–15's CSS width). */
export const PHONE = { width: 390, height: 844 };

/** Nothing on the page scrolls sideways: wide tables and code scroll inside their own box. */
export async function expectFitsWidth(page: Page) {
  const { scrollWidth, width, wide } = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out = (e: Element) => e.getBoundingClientRect().right > width + 1;
    // What sticks out, for the message: the outermost elements wider than the window.
    const wide = [...document.querySelectorAll('body *')]
      .filter((e) => out(e) && !(e.parentElement && out(e.parentElement)))
      .slice(0, 5)
      .map(
        (e) =>
          `${e.tagName.toLowerCase()}${typeof e.className === 'string' && e.className ? `.${e.className.split(' ').join('.')}` : ''} → ${Math.round(e.getBoundingClientRect().right)} px`,
      );
    return { scrollWidth: document.documentElement.scrollWidth, width, wide };
  });
  expect(scrollWidth, `scrolls sideways at ${width} px: ${wide.join('; ')}`).toBeLessThanOrEqual(width);
  await expectNoSqueezedText(page);
}

/**
 * Fails when a text is squeezed into a column a few letters wide: such a page fits the window and
 * still cannot be read (a table's last column breaking an alarm's advice a letter a line).
 */
export async function expectNoSqueezedText(page: Page) {
  const squeezed = await page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter((e) => {
        const own = [...e.childNodes]
          .filter((n) => n.nodeType === Node.TEXT_NODE)
          .map((n) => n.textContent ?? '')
          .join('')
          .trim();
        if (own.length < 24) return false;
        const r = e.getBoundingClientRect();
        // Hidden, or visually hidden for screen readers (a 1 px clip).
        if (r.width <= 2 || r.height <= 2 || getComputedStyle(e).visibility === 'hidden') return false;
        // Under about fourteen characters a line.
        return r.width < parseFloat(getComputedStyle(e).fontSize) * 8;
      })
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()} ${Math.round(e.getBoundingClientRect().width)} px wide: "${(e.textContent ?? '').trim().slice(0, 40)}…"`),
  );
  expect(squeezed, `text squeezed into a narrow column at ${page.viewportSize()?.width} px`).toEqual([]);
}

/** A source's open dead letters, counted, and the cluster of the newest (the API, as the page's user). */
export async function openDeadLetters(request: APIRequestContext, source: string): Promise<{ count: number; clusterId: string | null }> {
  const r = await request.get(`/api/v1/dead-letters?source=${source}&status=open&count=true&limit=1`);
  expect(r.status()).toBe(200);
  const body = (await r.json()) as { count: { count: number }; deadLetters: { clusterId: string | null }[] };
  return { count: body.count.count, clusterId: body.deadLetters[0]?.clusterId ?? null };
}

/**
 * A demo user's signed-in context of its own: the shared storage-state files under test-results/
 * can be overwritten by another run's setup in the same checkout.
 */
export async function signedInContext(browser: Browser, email: string): Promise<BrowserContext> {
  const { context, page } = await signInThroughForm(browser, email, DEMO_PASSWORD);
  await expect(page.getByTestId('whoami')).toHaveText(email);
  await page.close();
  return context;
}

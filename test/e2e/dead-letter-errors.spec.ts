// The dead-letter list cuts each error to one line; a row's error opens in place, by mouse or
// keyboard, to read the message whole (the list carries its first 500 characters, and says where the
// rest and the stack are), and the opened error fits an on-call phone. Seeded through the ingest API.
import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { expectFitsWidth, PHONE, signedInContext } from './helpers';

const RUN = Date.now().toString(36);
// A source of its own (team finance), so the other specs' counts of partner-webhooks stay theirs.
const SOURCE = `partner-errors-${RUN}`;
const TAIL = `settlement-${RUN}`;
// Long enough to be cut to one line, and past the list's 500 characters.
const MESSAGE = `upstream ledger refused the capture: ${'the partner sent an amount in minor units where major units were agreed, '.repeat(5)}${TAIL} ${'x'.repeat(300)}`;
const SHORT = `unknown field "gift" in order 13 (${RUN})`;

function cli(...args: string[]): string {
  return execFileSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts', ...args, '--json'], { encoding: 'utf8' });
}

/** A new ingest source of team finance and its token, made by the CLI (the run's DATABASE_URL, from scripts/e2e.mjs). */
function ingestToken(): string {
  cli('source', 'create', '--name', SOURCE, '--team', 'finance', '--kind', 'ingest');
  return (JSON.parse(cli('token', 'create', '--source', SOURCE).trim().split('\n').pop()!) as { token: string }).token;
}

test.beforeAll(async ({ playwright, baseURL }) => {
  const request = await playwright.request.newContext({ baseURL });
  const r = await request.post(`/api/v1/sources/${SOURCE}/dead-letters`, {
    headers: { authorization: `Bearer ${ingestToken()}`, 'content-type': 'application/json' },
    data: {
      deadLetters: [
        {
          messageId: `long-${RUN}`,
          payload: Buffer.from('{"amount":1250}').toString('base64'),
          contentType: 'application/json',
          reason: 'Rejected',
          error: { type: 'LedgerError', message: MESSAGE, stack: 'LedgerError\n    at capture (ledger.js:12:5)' },
          receiveCount: 3,
        },
        {
          messageId: `short-${RUN}`,
          payload: Buffer.from('{"order":13}').toString('base64'),
          contentType: 'application/json',
          reason: 'Rejected',
          error: { type: 'UnknownField', message: SHORT },
          receiveCount: 3,
        },
      ],
    },
  });
  expect(r.status()).toBe(200);
  await request.dispose();
});

test('a row’s error opens in place from the keyboard, whole, and fits a phone', async ({ browser }) => {
  const context = await signedInContext(browser, 'finance-support@triage.local');
  const page = await context.newPage();
  await page.setViewportSize(PHONE);
  await page.goto(`/dead-letters?source=${SOURCE}&messageId=long-${RUN}`);
  const row = page.getByTestId('dead-letters-table').locator('tbody tr');
  await expect(row).toHaveCount(1);
  const full = row.getByTestId('error-full');
  await expect(full).toBeHidden();

  // The keyboard reaches the cut error and opens it.
  const toggle = row.locator('summary');
  await toggle.focus();
  await expect(toggle).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(full).toBeVisible();
  await expect(full).toContainText(TAIL);
  await expect(full).toContainText('LedgerError');
  // The list carries the first 500 characters: the rest, and the stack, are a link away.
  await expect(full.getByRole('link', { name: /whole message and the stack/ })).toHaveAttribute('href', /^\/dead-letters\/\d+$/);

  // Wrapped to the phone's width, not one long line: once scrolled to, all of it is on screen.
  await full.scrollIntoViewIfNeeded();
  const box = (await full.boundingBox())!;
  expect(box.width).toBeLessThanOrEqual(PHONE.width);
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
  expect(box.height).toBeGreaterThan(60);
  await expectFitsWidth(page);

  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(full).toBeHidden();

  // A message the list holds whole says nothing of a rest.
  await page.goto(`/dead-letters?source=${SOURCE}&messageId=short-${RUN}`);
  const short = page.getByTestId('dead-letters-table').locator('tbody tr');
  await short.locator('summary').click();
  await expect(short.getByTestId('error-full')).toContainText(SHORT);
  await expect(short.getByTestId('error-full').getByRole('link', { name: /whole message/ })).toHaveCount(0);
  await context.close();
});

// Dead letters in the browser: a support engineer finds one by filter and search, reads its payload,
// archives it with a reason; the audit trail shows it; an auditor is refused on the server. Nasty
// payloads render as inert text. Dead letters are seeded through the ingest API with a token made by
// the CLI, as a forwarder would send them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { expect, test, type APIRequestContext, type BrowserContext } from '@playwright/test';
import { expectFitsWidth, PHONE, signedInContext } from './helpers';

const RUN = Date.now().toString(36);
const MARKER = `zebra-${RUN}`;
const SOURCE = 'partner-webhooks'; // team finance
const HTML = `<script>window.__pwned = 1; alert("dead letter")</script><img src=x onerror="window.__pwned=2">`;
const INVALID_UTF8 = Buffer.from([0x7b, 0xc3, 0x28, 0xff, 0xfe, 0x00, 0x7d]);

const payloads = {
  order: Buffer.from(JSON.stringify({ order: 13, gift: true, note: MARKER })),
  html: Buffer.from(HTML),
  deep: Buffer.from('['.repeat(10_000) + ']'.repeat(10_000)),
  binary: INVALID_UTF8,
};
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const ids: Record<keyof typeof payloads, string> = { order: '', html: '', deep: '', binary: '' };

/** A new ingest token of SOURCE, made by the CLI (which inherits the run's DATABASE_URL and state dir from scripts/e2e.mjs). */
function ingestToken(): string {
  const out = execFileSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts', 'token', 'create', '--source', SOURCE, '--json'], {
    encoding: 'utf8',
  });
  return (JSON.parse(out.trim().split('\n').pop()!) as { token: string }).token;
}

async function seed(request: APIRequestContext) {
  const token = ingestToken();
  const r = await request.post(`/api/v1/sources/${SOURCE}/dead-letters`, {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    data: {
      deadLetters: Object.entries(payloads).map(([name, bytes]) => ({
        messageId: `${name}-${RUN}`,
        payload: bytes.toString('base64'),
        contentType: name === 'binary' ? 'application/octet-stream' : name === 'html' ? 'text/html' : 'application/json',
        headers: { 'x-partner': 'acme', 'x-attempt': '3' },
        reason: 'Rejected',
        error: { type: 'UnknownField', message: `unknown field "gift" in order 13 (${name})` },
        receiveCount: 3,
      })),
    },
  });
  expect(r.status()).toBe(200);
  const { items } = (await r.json()) as { items: { messageId: string; id: string; sha256: string; created: boolean }[] };
  for (const it of items) {
    const name = it.messageId.split('-')[0] as keyof typeof payloads;
    ids[name] = it.id;
    expect(it.sha256).toBe(sha(payloads[name]));
  }
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ playwright, baseURL }) => {
  const request = await playwright.request.newContext({ baseURL });
  await seed(request);
  await request.dispose();
});

test.describe('a support engineer', () => {
  let context: BrowserContext;
  test.beforeAll(async ({ browser }) => {
    context = await signedInContext(browser, 'finance-support@triage.local');
  });
  test.afterAll(async () => {
    await context.close();
  });

  test('filters to a dead letter, reads its payload, and archives it with a reason', async () => {
    const page = await context.newPage();
    await page.goto('/dead-letters');
    const filters = page.getByTestId('filters');
    await filters.getByLabel('Source').selectOption(SOURCE);
    await filters.getByLabel('Status').selectOption('open');
    await filters.getByLabel('Search payload and error text').fill(MARKER);
    await filters.getByRole('button', { name: 'Apply' }).click();
    const table = page.getByTestId('dead-letters-table');
    // New dead letters become searchable within seconds (the search indexer runs beside the app); until
    // then the page says so, and searching again finds them.
    await expect(async () => {
      await page.reload();
      await expect(table.locator('tbody tr')).toHaveCount(1, { timeout: 500 });
    }).toPass({ timeout: 20_000 });
    await expect(page.getByTestId('match-count')).toContainText('1 matching');
    await table.getByRole('link', { name: `order-${RUN}` }).click();

    await expect(page).toHaveURL(new RegExp(`/dead-letters/${ids.order}$`));
    await expect(page.getByRole('heading', { level: 1 })).toContainText(`order-${RUN}`);
    await expect(page.getByTestId('payload-json')).toContainText(`"note": "${MARKER}"`);
    await expect(page.getByTestId('sha256')).toHaveText(sha(payloads.order));
    await expect(page.getByTestId('headers')).toContainText('x-partner');
    await expect(page.getByTestId('failure-history')).toContainText('UnknownField');
    await page.getByRole('link', { name: 'Hex' }).click();
    await expect(page.getByTestId('payload-hex')).toContainText('00000000  7b 22 6f 72');

    const download = await page.request.get(`/api/v1/dead-letters/${ids.order}/payload`);
    expect(download.status()).toBe(200);
    expect(sha(await download.body())).toBe(sha(payloads.order));

    const form = page.getByTestId('archive-form');
    await form.getByLabel('Reason to archive').fill('partner resent order 13 without the gift field');
    await form.getByRole('button', { name: 'Archive' }).click();
    await expect(page.getByTestId('status')).toHaveText('archived');
    await page.reload();
    await expect(page.getByTestId('status')).toHaveText('archived');
    await expect(page.getByTestId('decision')).toContainText('finance-support@triage.local');
    await expect(page.getByTestId('decision')).toContainText('partner resent order 13 without the gift field');
    await expect(page.getByTestId('archive-form')).toHaveCount(0);
  });

  test('sees nasty payloads as inert text, whatever their bytes', async () => {
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    const html = await page.request.get(`/dead-letters/${ids.html}`);
    expect(html.status()).toBe(200);
    const source = await html.text();
    expect(source).not.toContain('<script>window.__pwned');
    expect(source).not.toContain('<img src=x onerror');

    await page.goto(`/dead-letters/${ids.html}`);
    await expect(page.getByTestId('payload-text')).toContainText('<script>window.__pwned = 1;');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    await page.goto(`/dead-letters/${ids.deep}`);
    await expect(page.getByTestId('payload-viewer')).toHaveAttribute('data-mode', 'text');
    await expect(page.getByText('nested deeper than 64 levels')).toBeVisible();

    await page.goto(`/dead-letters/${ids.binary}`);
    await expect(page.getByTestId('payload-viewer')).toHaveAttribute('data-mode', 'hex');
    await expect(page.getByTestId('payload-hex')).toContainText('7b c3 28 ff fe 00 7d');
    const bytes = await page.request.get(`/api/v1/dead-letters/${ids.binary}/payload`);
    expect(bytes.headers()['content-disposition']).toMatch(/^attachment;/);
    expect(sha(await bytes.body())).toBe(sha(INVALID_UTF8));
    expect(dialogs).toEqual([]);
  });

  test('archives ticked rows in bulk after a preview of the count', async () => {
    const page = await context.newPage();
    await page.goto(`/dead-letters?source=${SOURCE}&status=open`);
    const table = page.getByTestId('dead-letters-table');
    await expect(table.locator('tbody tr')).toHaveCount(3);
    await table.getByLabel(`Select deep-${RUN}`).check();
    await table.getByLabel(`Select binary-${RUN}`).check();
    const bulk = page.getByTestId('bulk-actions');
    await bulk.getByRole('button', { name: 'Preview archive' }).click();
    await expect(bulk.getByRole('status')).toHaveText('2 dead letters would be archived.');
    await bulk.getByLabel('Reason').fill('partner confirmed these were test messages');
    await bulk.getByRole('button', { name: 'Archive selection' }).click();
    await expect(bulk.getByRole('status')).toHaveText('2 dead letters archived.');
    await expect(table.locator('tbody tr')).toHaveCount(1);
    await expect(table).toContainText(`html-${RUN}`);
  });

  test('the list fits a 1280-pixel-wide window: long ids, previews and errors are cut, not scrolled', async () => {
    const token = ingestToken();
    const long = `long-${RUN}-${'x'.repeat(300)}`;
    const r = await context.request.post(`/api/v1/sources/${SOURCE}/dead-letters`, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      data: {
        deadLetters: [
          {
            messageId: long,
            payload: Buffer.from(JSON.stringify({ note: 'word '.repeat(400) })).toString('base64'),
            error: { type: 'VeryLongValidationErrorTypeNameFromAFramework', message: `field ${'nested.'.repeat(80)}value failed validation` },
          },
        ],
      },
    });
    expect(r.status()).toBe(200);
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/dead-letters?source=${SOURCE}`);
    await expect(page.getByTestId('dead-letters-table').locator('tbody tr')).toHaveCount(5);
    await expect(page.getByTestId('dead-letters-table')).toContainText(`long-${RUN}-xxx`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  });

  test('starts a redrive from a dead letter or a list selection on the start page, which previews first', async () => {
    const page = await context.newPage();
    await page.goto(`/dead-letters/${ids.html}`);
    await page.getByTestId('redrive-link').click();
    await expect(page).toHaveURL(new RegExp(`/redrives/new\\?ids=${ids.html}$`));
    // The preview comes first: one open dead letter, and where it would go (this ingest-fed source has
    // no redrive URL yet, which the preview shows before anyone starts).
    const preview = page.getByTestId('redrive-preview');
    await expect(preview.getByTestId('preview-count')).toHaveText('1');
    await expect(preview).toContainText('partner-webhooks');
    await expect(preview).toContainText('no redrive URL set');

    await page.goto(`/dead-letters?source=${SOURCE}&status=open`);
    const table = page.getByTestId('dead-letters-table');
    await table.getByLabel(`Select html-${RUN}`).check();
    await page.getByTestId('bulk-actions').getByRole('button', { name: 'Redrive selection…' }).click();
    await expect(page).toHaveURL(new RegExp(`/redrives/new\\?ids=${ids.html}$`));
    await expect(page.getByRole('heading', { name: 'Redrive 1 selected dead letter' })).toBeVisible();
    // An archived dead letter offers no redrive.
    await page.goto(`/dead-letters/${ids.order}`);
    await expect(page.getByTestId('decision')).toContainText('archived');
    await expect(page.getByTestId('redrive-link')).toHaveCount(0);
  });

  test('finds a dead letter by a masked e-mail address only through a search reveal with a reason', async () => {
    const email = `jane-${RUN}@example.com`;
    const r = await context.request.post(`/api/v1/sources/${SOURCE}/dead-letters`, {
      headers: { authorization: `Bearer ${ingestToken()}`, 'content-type': 'application/json' },
      data: {
        deadLetters: [
          {
            messageId: `contact-${RUN}`,
            payload: Buffer.from(JSON.stringify({ contact: email })).toString('base64'),
            error: { type: 'Bounce', message: 'mailbox full' },
          },
        ],
      },
    });
    expect(r.status()).toBe(200);
    const page = await context.newPage();
    await page.goto(`/dead-letters?${new URLSearchParams({ q: email })}`);
    const note = page.getByTestId('masked-search');
    await expect(note).toContainText('Masked values (card numbers, e-mails, IBANs, sensitive fields) are not searched.');
    await page.getByLabel('Reason to search masked values').fill('customer asks where her bounced message went');
    await page.getByRole('button', { name: 'Search masked values too' }).click();
    await expect(page).toHaveURL(/[?&]reveal=\d+/);
    await expect(note).toContainText('Also matching inside masked values, through your search reveal');
    // The indexer may take a moment after the ingest: the page is read again until it is there.
    const table = page.getByTestId('dead-letters-table');
    await expect(async () => {
      await page.reload();
      await expect(table).toContainText(`contact-${RUN}`, { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
    // Found, and still masked: the address itself is not in the row.
    await expect(table.locator('tbody tr')).toHaveCount(1);
    expect(await table.innerText()).not.toContain(`jane-${RUN}@`);
    // A decision over "all matching the filter" never searches inside masked values: it says so.
    await expect(page.getByTestId('bulk-actions').getByRole('option', { name: 'All 0 matching the filter' })).toHaveCount(1);
    // The same search without the reveal, now that it is indexed, finds nothing.
    await page.goto(`/dead-letters?${new URLSearchParams({ q: email })}`);
    await expect(table).toContainText('No dead letters match.');
    // On the on-call phone the reveal form fits: nothing scrolls sideways or is squeezed.
    await page.setViewportSize(PHONE);
    await expect(page.getByLabel('Reason to search masked values')).toBeVisible();
    await expectFitsWidth(page);
  });
});

test('the audit trail shows the archive', async ({ browser }) => {
  const context = await signedInContext(browser, 'auditor@triage.local');
  const page = await context.newPage();
  await page.goto('/audit');
  const single = page.getByTestId('audit-table').locator('tr', { hasText: 'partner resent order 13 without the gift field' });
  await expect(single).toContainText('deadletter.archive');
  await expect(single).toContainText('finance-support@triage.local');
  await expect(single).toContainText(`deadletter ${ids.order}`);
  const bulk = page.getByTestId('audit-table').locator('tr', { hasText: 'partner confirmed these were test messages' });
  await expect(bulk).toContainText('deadletter.archive');
  await expect(bulk.locator('td').nth(6)).toHaveText('2');
  await context.close();
});

test('an auditor reads but cannot archive: the server refuses', async ({ browser, baseURL }) => {
  const context = await signedInContext(browser, 'auditor@triage.local');
  const page = await context.newPage();
  const request = context.request;
  await page.goto(`/dead-letters/${ids.html}`);
  await expect(page.getByTestId('payload-viewer')).toBeVisible();
  await expect(page.getByTestId('archive-form')).toHaveCount(0);
  // The auditor's own session cookie, from the app's own origin: refused by the permission, not by CSRF.
  const r = await request.post(`/api/v1/dead-letters/${ids.html}/archive`, {
    headers: { origin: baseURL! },
    data: { reason: 'auditors do not decide' },
  });
  expect(r.status()).toBe(403);
  const detail = await request.get(`/api/v1/dead-letters/${ids.html}`);
  expect(((await detail.json()) as { status: string }).status).toBe('open');
  await context.close();
});

test("another team does not see finance's dead letters", async ({ browser }) => {
  const context = await signedInContext(browser, 'support@triage.local');
  const request = context.request;
  expect((await request.get(`/api/v1/dead-letters/${ids.html}`)).status()).toBe(404);
  expect((await request.get(`/api/v1/dead-letters/${ids.html}/payload`)).status()).toBe(404);
  const list = (await (await request.get(`/api/v1/dead-letters?source=${SOURCE}`)).json()) as { deadLetters: unknown[] };
  expect(list.deadLetters).toEqual([]);
  const page = await context.newPage();
  const r = await page.goto(`/dead-letters/${ids.html}`);
  expect(r?.status()).toBe(404);
  await context.close();
});

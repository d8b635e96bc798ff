// Accessibility: axe-core's WCAG 2.0/2.1 A and AA rules on every page under app/, on the desktop and
// at phone size (390 px, where nothing may scroll sideways), for every role that may open it, with
// data on it (a source of its own holding breached, near-deadline, masked and discarded dead letters,
// a cluster, a redrive task, an audit event, a webhook, alarm states), and in the states users meet
// (an error after a bad submit, a preview, another payload view, a connector source's page and its
// connection form). A page added under app/ without an entry in PAGES fails the inventory test.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { HOME, ROLES, scopeFor, type Permission, type Role } from '@/lib/auth';
import { closeDb } from '@/lib/db';
import { DEMO_PASSWORD } from '../../prisma/seed';
import { routePath } from '../security/inventory';
import { ACTING } from '../security/fixtures';
import { seedAccessibility, type Seeded } from './accessibility-data';
import { as, expectFitsWidth, PHONE, submitForm } from './helpers';

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

interface PageEntry {
  /** Who may open it: a permission (at a scope), signed in without one, or signed out. */
  access: { permission: Permission; scope?: 'all' } | 'signed-in' | 'signed-out' | 'anyone';
  url: (s: Seeded, role: Role | 'signed-out') => string;
  /** Where it lands when it redirects (a saved view opens its page). */
  lands?: string;
}

// Every page.tsx under app/, by its route path (test/security/inventory.ts names them the same way).
const PAGES: Record<string, PageEntry> = {
  '/': { access: 'signed-in', url: () => '/' }, // redirects to the role's home: its landing page is checked
  '/sign-in': { access: 'signed-out', url: () => '/sign-in' },
  '/forbidden': { access: 'anyone', url: () => '/forbidden' },
  '/inbox': { access: { permission: 'deadletters.read' }, url: () => '/inbox' },
  '/dead-letters': { access: { permission: 'deadletters.read' }, url: (s) => `/dead-letters?source=${s.source}` },
  '/dead-letters/:id': { access: { permission: 'deadletters.read' }, url: (s) => `/dead-letters/${s.deadLetter}` },
  '/dead-letters/:id/edit': { access: { permission: 'deadletters.edit' }, url: (s) => `/dead-letters/${s.deadLetter}/edit` },
  '/clusters': { access: { permission: 'deadletters.read' }, url: () => '/clusters' },
  '/clusters/:id': { access: { permission: 'deadletters.read' }, url: (s) => `/clusters/${s.cluster}` },
  '/redrives': { access: { permission: 'deadletters.read' }, url: () => '/redrives' },
  '/redrives/new': { access: { permission: 'deadletters.redrive' }, url: (s) => `/redrives/new?ids=${s.deadLetter}` },
  '/redrives/transform': { access: { permission: 'deadletters.edit' }, url: (s) => `/redrives/transform?cluster=${s.cluster}` },
  '/redrives/:id': { access: { permission: 'deadletters.read' }, url: (s) => `/redrives/${s.redrive}` },
  '/sla': { access: { permission: 'deadletters.read' }, url: () => '/sla' },
  '/alarms': { access: { permission: 'deadletters.read' }, url: () => '/alarms' },
  '/sources': { access: { permission: 'deadletters.read' }, url: () => '/sources' },
  '/sources/:source': { access: { permission: 'deadletters.read' }, url: (s) => `/sources/${s.source}` },
  '/settings/webhooks': { access: { permission: 'sources.policy' }, url: () => '/settings/webhooks' },
  '/audit': { access: { permission: 'audit.read' }, url: () => '/audit' },
  '/audit/:id': { access: { permission: 'audit.read' }, url: (s) => `/audit/${s.auditEvent}` },
  '/audit/verify': { access: { permission: 'audit.read', scope: 'all' }, url: () => '/audit/verify' },
  '/views': { access: { permission: 'views.manage' }, url: () => '/views' },
  '/views/:id': { access: { permission: 'views.manage' }, url: (s, role) => `/views/${s.views[role as Role]}`, lands: '/dead-letters' },
  '/admin': { access: { permission: 'admin.manage' }, url: () => '/admin' },
  '/admin/sources/:source': { access: { permission: 'admin.manage' }, url: (s) => `/admin/sources/${s.connector}` },
};

function pageFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return pageFiles(p);
    return /^page\.[jt]sx?$/.test(name) ? [p] : [];
  });
}

function mayOpen(role: Role | 'signed-out', e: PageEntry): boolean {
  if (e.access === 'anyone') return true;
  if (e.access === 'signed-out') return role === 'signed-out';
  if (role === 'signed-out') return false;
  if (e.access === 'signed-in') return true;
  const scope = scopeFor(role, e.access.permission);
  return scope !== undefined && (e.access.scope === undefined || scope === e.access.scope);
}

/** The violations of WCAG 2.0/2.1 A and AA on the page as it is now, one line per element. */
async function violations(page: Page): Promise<string[]> {
  // The pages have no frames: axe.run in the page itself finds what axe finds frame by frame, where
  // the default mode opens a blank page per check to merge the frames' results (2 to 3 times the
  // time, the suite's largest cost). A page that gains a frame fails here, to choose again.
  expect(page.frames(), 'frames on the page').toHaveLength(1);
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_TAGS).setLegacyMode().analyze();
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')} — ${n.failureSummary?.replace(/\s+/g, ' ')}`));
}

async function expectAccessible(page: Page) {
  await page.waitForLoadState('load');
  await expect(page.locator('h1').first()).toBeVisible();
  // Charts draw once hydrated and measured; their legends are text that axe has to see.
  await expect(page.locator('.recharts-responsive-container:not(:has(svg))')).toHaveCount(0);
  expect(await violations(page)).toEqual([]);
}

let seeded: Seeded;

// Every test opens its own context on data nothing changes: the tests share the file's two workers.
test.describe.configure({ mode: 'parallel' });

test.beforeAll(async () => {
  seeded = await seedAccessibility();
});
test.afterAll(closeDb);

test('every page under app/ has an accessibility check', () => {
  const found = pageFiles(path.resolve('app')).map(routePath).sort();
  expect(found).toEqual(Object.keys(PAGES).sort());
});

// First: the longest tests (several pages and states each). Tests are handed to the two workers in
// the order they are declared, so the short page tests fill in at the end, not one long one alone.
test.describe('pages in the states users meet', () => {
  test('sign-in after a wrong password', async ({ page }) => {
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill('nobody@triage.local');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('form').getByRole('alert')).toHaveText('Wrong e-mail or password.');
    await expectAccessible(page);
  });

  test.describe('support', () => {
    test.use(as(ACTING.support));

    test('the dead-letter list with rows ticked: a preview, then an archive without a reason', async ({ page }) => {
      await page.goto(`/dead-letters?source=${seeded.source}`);
      const bulk = page.getByTestId('bulk-actions');
      await page.getByTestId('dead-letters-table').locator('tbody input[type=checkbox]').first().check();
      await bulk.getByRole('button', { name: 'Preview archive' }).click();
      await expect(bulk.getByRole('status')).toContainText('would be archived');
      await expectAccessible(page);
      await bulk.getByRole('button', { name: 'Archive selection' }).click();
      await expect(bulk.getByRole('alert')).toBeVisible();
      await expectAccessible(page);
    });

    test('a dead letter in its text and hex views, and a masked one revealed', async ({ page }) => {
      for (const view of ['Text', 'Hex']) {
        await page.goto(`/dead-letters/${seeded.deadLetter}`);
        await page.getByTestId('payload-viewer').getByRole('link', { name: view }).click();
        await expect(page.getByTestId('payload-viewer')).toHaveAttribute('data-mode', view.toLowerCase());
        await expectAccessible(page);
      }
      await page.goto(`/dead-letters/${seeded.sensitive}`);
      await expectAccessible(page);
      await page.goto(`/dead-letters/${seeded.masked}`);
      await expect(page.getByTestId('payload-masked')).toBeVisible();
      await expectAccessible(page);
      await submitForm(page.getByTestId('reveal-form'), { 'Reason to reveal': 'customer dispute #1234' }, 'Reveal');
      await expect(page).toHaveURL(/reveal=/);
      await expectAccessible(page);
    });

    test('a discarded dead letter: its decision, and its payload gone', async ({ page }) => {
      await page.goto(`/dead-letters/${seeded.discarded}`);
      await expect(page.getByTestId('decision')).toContainText('discarded');
      await expect(page.getByTestId('payload-gone')).toBeVisible();
      await expectAccessible(page);
    });
  });

  test.describe('lead', () => {
    test.use(as(ACTING.lead));

    test('a source policy refused with its reason', async ({ page }) => {
      await page.goto(`/sources/${seeded.source}`);
      const form = await submitForm(page.getByTestId('policy-form'), { 'Age deadline (hours)': String(14 * 24) }, 'Save policy');
      await expect(form.getByRole('alert')).toContainText('must be shorter than the retention');
      await expectAccessible(page);
    });

    test('a redrive previewed before it starts, and a cluster merge refused', async ({ page }) => {
      await page.goto(`/redrives/new?ids=${seeded.deadLetter}`);
      await expect(page.getByTestId('preview-count')).toHaveText('1');
      await expectAccessible(page);
      await page.goto(`/clusters/${seeded.cluster}`);
      const merge = await submitForm(
        page.getByTestId('merge-cluster-form'),
        { 'Merge into (cluster id)': '00000000-0000-4000-8000-000000000000', Reason: 'the same outage, worded two ways' },
        'Merge',
      );
      await expect(merge.getByRole('alert')).toBeVisible();
      await expectAccessible(page);
    });

    test('a webhook refused for its URL, and one webhook’s delivery log', async ({ page }) => {
      await page.goto('/settings/webhooks');
      const create = await submitForm(page.getByTestId('create-webhook'), { URL: 'http://169.254.169.254/latest' }, 'Add webhook');
      await expect(create.getByRole('alert')).toBeVisible();
      await expectAccessible(page);
      // One webhook's delivery log.
      await page.getByTestId('webhooks-table').getByRole('link', { name: 'Delivery log' }).first().click();
      await expect(page.getByTestId('deliveries-of')).toBeVisible();
      await expectAccessible(page);
    });
  });

  test.describe('admin', () => {
    test.use(as(ACTING.admin));

    test('a user that exists already, refused', async ({ page }) => {
      await page.goto('/admin');
      const form = await submitForm(page.getByTestId('create-user'), { 'E-mail': ACTING.support, Password: DEMO_PASSWORD }, 'Create user');
      await expect(form.getByRole('alert')).toBeVisible();
      await expectAccessible(page);
    });

    test("a connector source's page, and the create form with the SQS fields", async ({ page }) => {
      await page.goto(`/sources/${seeded.connector}`);
      await expect(page.getByTestId('trap-check')).toContainText('could not check');
      await expectAccessible(page);
      await page.goto('/admin');
      const form = page.getByTestId('create-source');
      await form.getByLabel('Kind').selectOption('sqs');
      await expect(form.getByTestId('connection-fields-sqs')).toBeVisible();
      await expectAccessible(page);
    });
  });
});

for (const [route, entry] of Object.entries(PAGES)) {
  for (const role of [...ROLES, 'signed-out' as const].filter((r) => mayOpen(r, entry))) {
    test(`${route} as ${role}`, async ({ browser }) => {
      const context = await browser.newContext(role === 'signed-out' ? {} : as(ACTING[role]));
      const page = await context.newPage();
      const url = entry.url(seeded, role);
      await page.goto(url);
      // The page itself, not the sign-in or forbidden page instead (the root redirects home).
      const landed = route === '/' && role !== 'signed-out' ? HOME[role] : (entry.lands ?? url.split('?')[0]!);
      expect(new URL(page.url()).pathname).toBe(landed);
      await expectAccessible(page);
      // The on-call phone: the same page at 390 px, accessible, and nothing to scroll sideways.
      await page.setViewportSize(PHONE);
      await page.reload();
      await expectAccessible(page);
      await expectFitsWidth(page);
      await context.close();
    });
  }
}

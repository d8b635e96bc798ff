// Every form keeps what was typed and speaks plainly: each form of the registry below is sent
// something the server refuses (mostly a 10,000-character word where a limit is far lower); the
// typed values are still there, the message names the field as the form labels it, with no
// internal name or zod wording, and a field with a limit shows it. A server action under app/ that
// is in no entry and not listed as taking no typed input fails the inventory test. Then long
// unbroken text (a note, a ticket link, a reason) stays inside its card on the desktop and at 390 px.
import { randomInt } from 'node:crypto';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { SYSTEM, type Role } from '@/lib/auth';
import { closeDb, db } from '@/lib/db';
import { decideDeadLetter } from '@/lib/deadletters/decide';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { addClusterNote, updateOwnership } from '@/lib/ownership/ownership';
import { createSource } from '@/lib/sources/create-source';
import { createView } from '@/lib/saved-views';
import { serverActions } from '../security/inventory';
import { ACTING } from '../security/fixtures';
import { as, expectFitsWidth, PHONE } from './helpers';
import { principal } from './principal';

/** One unbroken word, far over every limit a form field has. */
const LONG = 'w'.repeat(10_000);
/** What no message may show: zod's wording, a schema path, the old "field: message" prefix. */
const INTERNAL = /Too big|Too small|Invalid input|Invalid request|Invalid option|expected string|<=|\b[a-z]+[A-Z][A-Za-z]*\b|^\s*[a-z]\w*:/;

/** A unique lowercase word: no digits, no hex, so masking never hides it on a page. */
const word = (n = 8) => Array.from({ length: n }, () => 'bcdfghjklmnpqrstvwxz'[randomInt(20)]).join('');

interface Seeded {
  source: string;
  connector: string;
  deadLetter: string;
  masked: string;
  cluster: string;
  otherCluster: string;
  view: string;
}

interface FormCase {
  /** The server actions (file#name) or JSON API it posts to; a GET filter form names none. */
  posts: string[];
  role: Role | 'signed-out';
  url: (s: Seeded) => string;
  form: (page: Page) => Locator;
  /** Steps before filling (open a preview, tick a row). */
  before?: (page: Page, form: Locator) => Promise<void>;
  /** By label: what is typed. */
  fill: Record<string, string>;
  submit: string;
  /** The label the message names, or the message itself where no field is at fault. */
  says: string | RegExp;
  /** The label of a field whose limit shows (filled with LONG): "10,000 / 1,000". */
  limit?: { label: string; max: string };
}

const byTestId = (id: string) => (page: Page) => page.getByTestId(id);
const withButton = (name: string) => (page: Page) => page.locator('form').filter({ has: page.getByRole('button', { name, exact: true }) });

const FORMS: Record<string, FormCase> = {
  'sign in with a wrong password': {
    posts: ['app/(auth)/sign-in/actions.ts#signInWithPassword'],
    role: 'signed-out',
    url: () => '/sign-in',
    form: (page) => page.locator('form').first(),
    fill: { 'E-mail': 'nobody@triage.local', Password: 'not the password' },
    submit: 'Sign in',
    says: 'Wrong e-mail or password.',
  },
  'create a team with a name too long': {
    posts: ['app/(dashboard)/admin/actions.ts#createTeamAction'],
    role: 'admin',
    url: () => '/admin',
    form: withButton('Create team'),
    fill: { Name: LONG },
    submit: 'Create team',
    says: 'Name can be at most 100 characters; this one has 10,000.',
  },
  'create a user with an e-mail too long': {
    posts: ['app/(dashboard)/admin/actions.ts#createUserAction'],
    role: 'admin',
    url: () => '/admin',
    form: byTestId('create-user'),
    fill: { 'E-mail': `${'u'.repeat(400)}@example.com`, Password: 'a long enough password' },
    submit: 'Create user',
    says: 'E-mail can be at most 320 characters; this one has 412.',
  },
  'create a source whose name is taken': {
    posts: ['app/(dashboard)/admin/actions.ts#createSourceAction'],
    role: 'admin',
    url: () => '/admin',
    form: byTestId('create-source'),
    fill: { Name: 'orders' },
    submit: 'Create source',
    says: 'Source "orders" already exists',
  },
  "a connector's description too long": {
    posts: ['app/(dashboard)/admin/actions.ts#updateConnectionAction'],
    role: 'admin',
    url: (s) => `/admin/sources/${s.connector}`,
    form: (page) => page.locator('form').filter({ has: page.getByLabel('Description', { exact: true }) }),
    fill: { Description: LONG },
    submit: 'Save connection',
    says: 'Description can be at most 500 characters; this one has 10,000.',
  },
  'a webhook URL too long': {
    posts: ['app/(dashboard)/settings/webhooks/actions.ts#createWebhookAction'],
    role: 'lead',
    url: () => '/settings/webhooks',
    form: byTestId('create-webhook'),
    fill: { URL: `https://hooks.example/${LONG}` },
    submit: 'Add webhook',
    says: 'URL can be at most 2,000 characters; this one has 10,022.',
  },
  'archive a cluster with a reason too long': {
    posts: ['app/(dashboard)/clusters/[id]/actions.ts#archiveClusterAction'],
    role: 'lead',
    url: (s) => `/clusters/${s.cluster}`,
    form: byTestId('archive-cluster-form'),
    fill: { 'Reason to archive': LONG },
    submit: 'Archive',
    says: 'Reason to archive can be at most 1,000 characters; this one has 10,000.',
    limit: { label: 'Reason to archive', max: '1,000' },
  },
  'merge a cluster with a reason too long': {
    posts: ['app/(dashboard)/clusters/[id]/actions.ts#mergeClusterAction'],
    role: 'lead',
    url: (s) => `/clusters/${s.otherCluster}`,
    form: byTestId('merge-cluster-form'),
    fill: { 'Merge into (cluster id)': 'not a cluster', Reason: LONG },
    submit: 'Merge',
    says: 'Reason can be at most 1,000 characters; this one has 10,000.',
    limit: { label: 'Reason', max: '1,000' },
  },
  'ownership with a note too long': {
    posts: ['app/(dashboard)/clusters/[id]/ownership-actions.ts#updateOwnershipAction'],
    role: 'support',
    url: (s) => `/clusters/${s.cluster}`,
    form: byTestId('ownership-form'),
    fill: { Assignee: 'me', Ticket: 'https://tickets.example/T-1', Note: LONG },
    submit: 'Save',
    says: 'Note can be at most 4,000 characters; this one has 10,000.',
    limit: { label: 'Note', max: '4,000' },
  },
  'a cluster note too long': {
    posts: ['app/(dashboard)/clusters/[id]/ownership-actions.ts#addClusterNoteAction'],
    role: 'support',
    url: (s) => `/clusters/${s.cluster}`,
    form: byTestId('note-form'),
    fill: { 'Add a note': LONG },
    submit: 'Add note',
    says: 'Add a note can be at most 4,000 characters; this one has 10,000.',
    limit: { label: 'Add a note', max: '4,000' },
  },
  'split a cluster by a JSON path that is not one': {
    posts: ['app/(dashboard)/clusters/[id]/correction-actions.ts#splitClusterAction'],
    role: 'lead',
    url: (s) => `/clusters/${s.cluster}`,
    form: byTestId('split-cluster-form'),
    fill: { 'JSON path': `$.${LONG}` },
    submit: 'Preview',
    says: 'JSON path can be at most 200 characters; this one has 10,002.',
  },
  'archive a dead letter with a reason too long': {
    posts: ['app/(dashboard)/dead-letters/actions.ts#decideAction'],
    role: 'lead',
    url: (s) => `/dead-letters/${s.deadLetter}`,
    form: byTestId('archive-form'),
    fill: { 'Reason to archive': LONG },
    submit: 'Archive',
    says: 'Reason to archive can be at most 1,000 characters; this one has 10,000.',
    limit: { label: 'Reason to archive', max: '1,000' },
  },
  'reveal a payload with a reason too long': {
    posts: ['app/(dashboard)/dead-letters/actions.ts#revealAction'],
    role: 'support',
    url: (s) => `/dead-letters/${s.masked}`,
    form: byTestId('reveal-form'),
    fill: { 'Reason to reveal': LONG },
    submit: 'Reveal',
    says: 'Reason to reveal can be at most 1,000 characters; this one has 10,000.',
    limit: { label: 'Reason to reveal', max: '1,000' },
  },
  'search masked values with a reason too long': {
    posts: ['app/(dashboard)/dead-letters/actions.ts#searchRevealAction'],
    role: 'support',
    url: (s) => `/dead-letters?q=${s.source}`,
    form: byTestId('search-reveal-form'),
    fill: { 'Reason to search masked values': LONG },
    submit: 'Search masked values too',
    says: 'Reason to search masked values can be at most 1,000 characters; this one has 10,000.',
    limit: { label: 'Reason to search masked values', max: '1,000' },
  },
  'archive ticked rows with a reason too long': {
    posts: ['app/(dashboard)/dead-letters/actions.ts#bulkAction'],
    role: 'lead',
    url: (s) => `/dead-letters?source=${s.source}`,
    form: byTestId('bulk-actions'),
    before: async (page) => page.getByTestId('dead-letters-table').locator('tbody input[type=checkbox]').first().check(),
    fill: { Reason: LONG },
    submit: 'Archive selection',
    says: 'Reason can be at most 1,000 characters; this one has 10,000.',
    limit: { label: 'Reason', max: '1,000' },
  },
  'save a view under a name too long': {
    posts: ['app/(dashboard)/views/actions.ts#saveViewAction'],
    role: 'lead',
    url: (s) => `/dead-letters?source=${s.source}`,
    form: byTestId('save-view'),
    fill: { 'Save these filters as': LONG },
    submit: 'Save view',
    says: 'Save these filters as can be at most 80 characters; this one has 10,000.',
    limit: { label: 'Save these filters as', max: '80' },
  },
  'rename a view to a name too long': {
    posts: ['app/(dashboard)/views/actions.ts#updateViewAction'],
    role: 'lead',
    url: () => '/views',
    form: (page) => page.getByTestId('edit-view').first(),
    fill: { Name: LONG },
    submit: 'Save',
    says: 'Name can be at most 80 characters; this one has 10,000.',
    limit: { label: 'Name', max: '80' },
  },
  'a policy whose redrive secret is too short': {
    posts: ['app/(dashboard)/sources/[source]/actions.ts#updatePolicyAction'],
    role: 'lead',
    url: (s) => `/sources/${s.source}`,
    form: byTestId('policy-form'),
    fill: { 'Max receives': '7', 'Accepts redrives from (sources, comma-separated)': 'orders', 'Redrive secret': 'short' },
    submit: 'Save policy',
    says: /Redrive secret needs at least 16 characters/,
  },
  'grouping rules with a reason too long': {
    posts: ['app/(dashboard)/sources/[source]/grouping-actions.ts#saveGroupingRulesAction'],
    role: 'lead',
    url: (s) => `/sources/${s.source}`,
    form: byTestId('grouping-rules-form'),
    fill: { 'Group by payload paths': '$.type', Reason: LONG },
    submit: 'Save rules',
    says: 'Reason can be at most 1,000 characters; this one has 10,000.',
    limit: { label: 'Reason', max: '1,000' },
  },
  're-apply grouping with a reason too long': {
    posts: ['app/(dashboard)/sources/[source]/grouping-actions.ts#reapplyGroupingRulesAction'],
    role: 'lead',
    url: (s) => `/sources/${s.source}`,
    form: byTestId('reapply-grouping-form'),
    fill: { Reason: LONG },
    submit: 'Re-apply to the open dead letters',
    says: 'Reason can be at most 1,000 characters; this one has 10,000.',
    limit: { label: 'Reason', max: '1,000' },
  },
  'a redrive rule with a name too long': {
    posts: ['app/(dashboard)/sources/[source]/redrive-rules-actions.ts#createRedriveRuleAction'],
    role: 'lead',
    url: (s) => `/sources/${s.source}`,
    form: byTestId('new-redrive-rule-form'),
    fill: { 'Rule name': LONG },
    submit: 'Add rule',
    says: 'Rule name can be at most 100 characters; this one has 10,000.',
    limit: { label: 'Rule name', max: '100' },
  },
  'pause an import with a reason too long': {
    posts: ['app/(dashboard)/sources/[source]/connector-actions.ts#setImportPausedAction'],
    role: 'lead',
    url: (s) => `/sources/${s.connector}`,
    form: byTestId('import-switch'),
    fill: { 'Reason (audited)': LONG },
    submit: 'Pause import',
    says: 'Reason can be at most 1,000 characters; this one has 10,000.',
    limit: { label: 'Reason (audited)', max: '1,000' },
  },
  'start a redrive with a reason too long (JSON API)': {
    posts: ['POST /api/v1/redrives'],
    role: 'lead',
    url: (s) => `/redrives/new?ids=${s.deadLetter}`,
    form: (page) => page.getByTestId('start-redrive').locator('form'),
    before: async (page) => expect(page.getByTestId('preview-count')).toBeVisible(),
    fill: { 'Ramp (optional, e.g. 1, 10, 100)': '1, 5', Reason: LONG },
    submit: 'Start redrive',
    says: 'Reason can be at most 1,000 characters.',
    limit: { label: 'Reason', max: '1,000' },
  },
  'an edit and redrive with a reason too long (JSON API)': {
    posts: ['POST /api/v1/dead-letters/{id}/edit'],
    role: 'lead',
    url: (s) => `/dead-letters/${s.deadLetter}/edit`,
    form: withButton('Redrive the edited copy'),
    fill: { Reason: LONG },
    submit: 'Redrive the edited copy',
    says: 'Reason can be at most 1,000 characters.',
    limit: { label: 'Reason', max: '1,000' },
  },
  'search the dead letters with two characters (a filter)': {
    posts: [],
    role: 'lead',
    url: (s) => `/dead-letters?source=${s.source}`,
    form: (page) => page.locator('form').filter({ has: page.getByRole('button', { name: 'Apply' }) }),
    fill: { 'Search payload and error text': 'ab' },
    submit: 'Apply',
    says: 'Search payload and error text needs at least 3 characters.',
  },
};

// Server actions no user types into: buttons with hidden fields, or a state the suite cannot make.
const NO_TYPED_INPUT: Record<string, string> = {
  'app/(auth)/sign-in/actions.ts#signInWithOidc': 'a button to the identity provider',
  'app/(dashboard)/actions.ts#signOutAction': 'a button',
  'app/(dashboard)/admin/actions.ts#updateUserAction': 'selects of known values only',
  'app/(dashboard)/admin/actions.ts#createTokenAction': 'selects of known values only',
  'app/(dashboard)/admin/actions.ts#setAssistantRolesAction': 'checkboxes of known values only',
  'app/(dashboard)/admin/actions.ts#revokeTokenAction': 'a button',
  'app/(dashboard)/settings/webhooks/actions.ts#setWebhookEnabledAction': 'a button',
  'app/(dashboard)/settings/webhooks/actions.ts#deleteWebhookAction': 'a button',
  'app/(dashboard)/settings/webhooks/actions.ts#testWebhookAction': 'a button',
  'app/(dashboard)/views/actions.ts#deleteViewAction': 'a button',
  'app/(dashboard)/clusters/[id]/correction-actions.ts#acceptMergeSuggestionAction': 'a button',
  // Its reason field is the same limited field as every other reason; it shows only after a merge.
  'app/(dashboard)/clusters/[id]/correction-actions.ts#undoMergeAction': 'shown after a merge; the reason field as everywhere',
  // Shown only beside a broken audit chain, which this suite does not break.
  'app/(dashboard)/audit/verify/actions.ts#acknowledgeBreakAction': 'shown beside a broken chain only; the reason field as everywhere',
  'app/(dashboard)/sources/[source]/redrive-rules-actions.ts#toggleRedriveRuleAction': 'a button',
  'app/(dashboard)/sources/[source]/redrive-rules-actions.ts#deleteRedriveRuleAction': 'a button',
  'app/(dashboard)/sources/[source]/connector-actions.ts#testConnectionAction': 'a button',
};

let seeded: Seeded;

async function seed(): Promise<Seeded> {
  const actor = { ...SYSTEM, label: 'forms-suite' };
  const source = await createSource(actor, { name: `forms-${word()}`, team: 'commerce', description: 'What the forms suite submits to' });
  const connector = await createSource(actor, {
    name: `forms-sqs-${word()}`,
    team: 'commerce',
    kind: 'sqs',
    connection: { queueUrl: 'http://127.0.0.1:9/000000000000/forms-dlq', endpoint: 'http://127.0.0.1:9', region: 'us-east-1' },
    secret: {},
  });
  const failure = (cause: string) => ({
    reason: 'Rejected' as const,
    errorType: `${cause}Error`,
    errorMessage: `the ${cause} service refused the order`,
    contentType: 'application/json',
  });
  const rows = await recordDeadLetters({ id: source.id, retentionSeconds: source.retentionSeconds }, [
    { messageId: 'plain-one', payload: Buffer.from('{"order":"one","type":"gift"}'), ...failure('billing') },
    { messageId: 'plain-two', payload: Buffer.from('{"order":"two","type":"plain"}'), ...failure('billing') },
    { messageId: 'masked', payload: Buffer.from(JSON.stringify({ order: 'three', card: '4111 1111 1111 1111' })), ...failure('billing') },
    { messageId: 'other', payload: Buffer.from('{"order":"four"}'), ...failure('shipping') },
  ]);
  const id = (messageId: string) => rows.find((r) => r.messageId === messageId)!.id;
  const clusterOf = async (messageId: string) =>
    (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id(messageId)) }, select: { clusterId: true } })).clusterId!;
  const lead = await principal(ACTING.lead);
  const view = await createView(lead, { page: 'dead_letters', name: `forms ${word()}`, filters: `source=${source.name}`, shared: false });
  return {
    source: source.name,
    connector: connector.name,
    deadLetter: id('plain-one'),
    masked: id('masked'),
    cluster: await clusterOf('plain-one'),
    otherCluster: await clusterOf('other'),
    view: view.id,
  };
}

test.beforeAll(async () => {
  seeded = await seed();
});
test.afterAll(closeDb);

test('every server action is in a form of the registry, or takes no typed input', () => {
  const posted = new Set(Object.values(FORMS).flatMap((f) => f.posts));
  const missing = serverActions()
    .map((a) => `${a.file}#${a.name}`)
    .filter((a) => !posted.has(a) && !(a in NO_TYPED_INPUT));
  expect(missing).toEqual([]);
});

for (const [name, c] of Object.entries(FORMS)) {
  test(`${name}: the values stay, the message names the field`, async ({ browser }) => {
    const context = await browser.newContext(c.role === 'signed-out' ? {} : as(ACTING[c.role]));
    const page = await context.newPage();
    await page.goto(c.url(seeded));
    const form = c.form(page);
    await expect(form).toBeVisible();
    await c.before?.(page, form);
    for (const [label, value] of Object.entries(c.fill)) await form.getByLabel(label, { exact: true }).fill(value);
    if (c.limit) {
      // Shown, never enforced by cutting: the whole 10,000 characters are in the field.
      await expect(form.getByLabel(c.limit.label, { exact: true })).toHaveAccessibleDescription(new RegExp(`10,000 / ${c.limit.max}`));
    }
    await form.getByRole('button', { name: c.submit }).first().click();
    const message = c.posts.length ? form.getByRole('alert') : page.getByRole('alert').filter({ hasText: 'Search' });
    await expect(message).toBeVisible();
    if (typeof c.says === 'string') await expect(message).toContainText(c.says);
    else await expect(message).toHaveText(c.says);
    expect(await message.innerText()).not.toMatch(INTERNAL);
    for (const [label, value] of Object.entries(c.fill)) {
      if (label === 'Password' || label === 'Redrive secret') continue; // a secret is not kept on the page
      await expect(c.form(page).getByLabel(label, { exact: true })).toHaveValue(value);
    }
    await context.close();
  });
}

test.describe('long unbroken text stays inside its card', () => {
  test.use(as(ACTING.lead));

  test('a long note, ticket link and reason, on the desktop and at 390 px', async ({ page }) => {
    const lead = await principal(ACTING.lead);
    const noteWord = `n${'o'.repeat(3_999)}`;
    const ticket = `https://tickets.example/${'t'.repeat(1_900)}`;
    await updateOwnership(lead, seeded.otherCluster, { ticketUrl: ticket, note: noteWord });
    await addClusterNote(lead, seeded.otherCluster, { body: `x${'y'.repeat(3_999)}` });
    const other = await db().deadLetter.findFirstOrThrow({ where: { clusterId: seeded.otherCluster }, select: { id: true } });
    await decideDeadLetter(lead, 'archive', other.id.toString(), `r${'e'.repeat(999)}`);

    for (const size of [{ width: 1280, height: 900 }, PHONE]) {
      await page.setViewportSize(size);
      for (const url of [`/clusters/${seeded.otherCluster}`, `/dead-letters/${other.id}`]) {
        await page.goto(url);
        await expect(page.locator('h1').first()).toBeVisible();
        await expectFitsWidth(page);
        // Nothing sticks out of the card it is in.
        const spills = await page.evaluate(() =>
          [...document.querySelectorAll('.card')].flatMap((card) => {
            const edge = card.getBoundingClientRect().right;
            return [...card.querySelectorAll('p, li, dd, span, a, code, label')]
              .filter((e) => !e.closest('table, pre') && e.getBoundingClientRect().right > edge + 1)
              .slice(0, 3)
              .map((e) => `${e.tagName.toLowerCase()} ${Math.round(e.getBoundingClientRect().right)} > ${Math.round(edge)}`);
          }),
        );
        expect(spills, `${url} at ${size.width} px`).toEqual([]);
      }
    }
  });
});

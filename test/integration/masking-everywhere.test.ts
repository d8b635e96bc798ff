// Masking holds on every path: attacks by a role without payload.reveal (the auditor),
// through the route handlers an HTTP client reaches, and what a role with reveal must do to see.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { db } from '@/lib/db';
import { drainBacklog } from '@/lib/search';
import { revealSearch } from '@/lib/deadletters/reveal-payload';
import { GET as getList } from '@/app/api/v1/dead-letters/route';
import { GET as getDetail } from '@/app/api/v1/dead-letters/[id]/route';
import { POST as postBatch } from '@/app/api/v1/sources/[source]/dead-letters/route';
import { GET as getPolicy, PATCH as patchPolicy } from '@/app/api/v1/sources/[source]/policy/route';
import { POST as postRaw } from '@/app/api/v1/sources/[source]/dead-letters/raw/route';
import { GET as getPayload } from '@/app/api/v1/dead-letters/[id]/payload/route';
import { POST as postReveal } from '@/app/api/v1/dead-letters/[id]/reveal/route';
import { POST as postWebhook } from '@/app/api/v1/webhooks/route';
import { GET as getExport, POST as postExport } from '@/app/api/v1/dead-letters/export/route';
import { GET as getClusters } from '@/app/api/v1/clusters/route';
import { GET as getCluster } from '@/app/api/v1/clusters/[id]/route';
import { GET as getSource } from '@/app/api/v1/sources/[source]/route';
import { GET as getSources } from '@/app/api/v1/sources/route';
import { GET as getRedrivePreview } from '@/app/api/v1/redrives/preview/route';
import { POST as postRedrive } from '@/app/api/v1/redrives/route';
import { b64, BASE, ctx, getRequest, jsonRequest, world, type Who, type World } from './deadletters-world';

const w = {} as World;

freshDatabase({ per: 'file', seed: async () => Object.assign(w, await world()) });

type Listed = { id: string; messageId: string; masked: boolean };

async function ingest(source: 'orders' | 'payments', deadLetters: Record<string, unknown>[]): Promise<string[]> {
  const r = await postBatch(jsonRequest(`/api/v1/sources/${source}/dead-letters`, w.tokens.ingest[source], { deadLetters }), ctx({ source }));
  expect(r.status).toBe(200);
  return ((await r.json()) as { items: { id: string }[] }).items.map((i) => i.id);
}

async function search(who: Who, q: string, reveal?: string): Promise<Listed[]> {
  const r = await getList(getRequest(`/api/v1/dead-letters?${new URLSearchParams({ q, ...(reveal ? { reveal } : {}) })}`, w.tokens.personal[who]), ctx({}));
  expect(r.status).toBe(200);
  return ((await r.json()) as { deadLetters: Listed[] }).deadLetters;
}

const detail = async (who: Who, id: string) => {
  const r = await getDetail(getRequest(`/api/v1/dead-letters/${id}`, w.tokens.personal[who]), ctx({ id }));
  expect(r.status).toBe(200);
  return (await r.json()) as Record<string, unknown>;
};

describe('search is no oracle for detector-masked values', () => {
  it('searching for a card number, an e-mail or an IBAN held in a payload finds nothing; an admin finds each through a search reveal', async () => {
    const [card, email, iban, plain] = await ingest('orders', [
      { messageId: 'oracle-card', payload: b64('{"note":"pay with 4111 1111 1111 1111 today"}'), error: { type: 'Declined', message: 'declined' } },
      { messageId: 'oracle-email', payload: b64('{"contact":"jane.doe@example.com"}'), error: { type: 'Bounce', message: 'bounced' } },
      { messageId: 'oracle-iban', payload: b64('pay to DE89 3704 0044 0532 0130 00 now'), error: { type: 'Declined', message: 'declined' } },
      { messageId: 'oracle-plain', payload: b64('{"order":"parcel-oracle-77"}'), error: { type: 'Declined', message: 'declined' } },
    ]);
    await drainBacklog();
    for (const who of ['auditor', 'admin'] as const) {
      for (const q of ['4111 1111 1111', 'jane.doe', 'DE89 3704']) expect(await search(who, q), `${who} ${q}`).toEqual([]);
    }
    const { eventId } = await revealSearch(w.actors.admin, 'fraud case review');
    expect((await search('admin', '4111 1111 1111', eventId)).map((d) => d.id)).toEqual([card]);
    expect((await search('admin', 'jane.doe', eventId)).map((d) => d.id)).toEqual([email]);
    expect((await search('admin', 'DE89 3704', eventId)).map((d) => d.id)).toEqual([iban]);
    // A payload without sensitive values stays searchable for everyone.
    expect((await search('auditor', 'parcel-oracle-77')).map((d) => d.id)).toEqual([plain]);
    // The stored verdict is what the list and the API say.
    for (const id of [card!, email!, iban!]) expect((await detail('auditor', id)).masked, id).toBe(true);
    expect((await detail('auditor', plain!)).masked).toBe(false);
  });

  it("a change of a source's sensitive paths hides matching payloads from search at once, and the recompute stores the verdict", async () => {
    const [secret] = await ingest('orders', [
      { messageId: 'paths-secret', payload: b64('{"secret":"hunter2-swordfish"}'), error: { type: 'Auth', message: 'denied' } },
    ]);
    await drainBacklog();
    expect((await search('auditor', 'hunter2-swordfish')).map((d) => d.id)).toEqual([secret]);
    const r = await patchPolicy(
      jsonRequest('/api/v1/sources/orders/policy', w.tokens.personal.admin, { sensitivePaths: ['$.secret'] }, { method: 'PATCH' }),
      ctx({ source: 'orders' }),
    );
    expect(r.status).toBe(200);
    expect(await search('auditor', 'hunter2-swordfish')).toEqual([]);
    const pending = (await (await getPolicy(getRequest('/api/v1/sources/orders/policy', w.tokens.personal.admin), ctx({ source: 'orders' }))).json()) as Record<
      string,
      unknown
    >;
    expect(pending.maskingRecompute).toMatchObject({ done: false });
    const { recomputeVerdicts } = await import('@/lib/masking/recompute-verdicts');
    let rounds = 0;
    while ((await recomputeVerdicts({ batch: 2 })).remaining > 0) expect(++rounds).toBeLessThan(100);
    const done = (await (await getPolicy(getRequest('/api/v1/sources/orders/policy', w.tokens.personal.admin), ctx({ source: 'orders' }))).json()) as Record<
      string,
      unknown
    >;
    expect(done.maskingRecompute).toMatchObject({ done: true });
    expect(await search('auditor', 'hunter2-swordfish')).toEqual([]);
    const [row] = await db().$queryRaw<{ payload_masked: boolean | null }[]>`SELECT payload_masked FROM dead_letters WHERE id = ${BigInt(secret!)}`;
    expect(row!.payload_masked).toBe(true);
    await patchPolicy(
      jsonRequest('/api/v1/sources/orders/policy', w.tokens.personal.admin, { sensitivePaths: [] }, { method: 'PATCH' }),
      ctx({ source: 'orders' }),
    );
    while ((await recomputeVerdicts()).remaining > 0);
  });

  it('a row written before verdicts existed counts as sensitive until the backfill decides it', async () => {
    const [old] = await ingest('orders', [{ messageId: 'backfill-card', payload: b64('{"card":"4111111111111111"}'), error: { type: 'Old', message: 'old' } }]);
    await drainBacklog();
    await db().$executeRaw`UPDATE dead_letters SET payload_masked = NULL, text_masked = NULL WHERE id = ${BigInt(old!)}`;
    expect(await search('auditor', '4111111111111111')).toEqual([]);
    expect((await detail('auditor', old!)).masked).toBe(true);
  });
});

describe('payloads over the masking size limit', () => {
  // 6 MB of text with a card number at its very end: over lib/masking's 4 MiB field-by-field limit,
  // under the source's 10 MiB payload limit.
  const big = Buffer.concat([Buffer.from(`{"log":"${'x'.repeat(6_000_000)}`), Buffer.from(' card 4111111111111111"}')]);

  async function ingestBig(messageId: string): Promise<string> {
    const r = await postRaw(
      new Request(`${BASE}/api/v1/sources/orders/dead-letters/raw`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.tokens.ingest.orders}`, 'triage-message-id': messageId, 'content-type': 'application/json' },
        body: big,
      }),
      ctx({ source: 'orders' }),
    );
    expect(r.status).toBe(201);
    return ((await r.json()) as { id: string }).id;
  }

  const exported = async (who: Who, messageId: string) =>
    (
      await getExport(
        getRequest(`/api/v1/dead-letters/export?format=ndjson&payload=true&source=orders&messageId=${messageId}`, w.tokens.personal[who]),
        ctx({}),
      )
    ).text();

  it('are scanned whole: the auditor gets neither the bytes nor the card number, written now or decided later', async () => {
    const fresh = await ingestBig('big-fresh');
    const undecided = await ingestBig('big-undecided');
    // As a row written before verdicts existed, or while its source's are recomputed: decided on read.
    await db().$executeRaw`UPDATE dead_letters SET payload_masked = NULL WHERE id = ${BigInt(undecided)}`;
    for (const [id, messageId] of [
      [fresh, 'big-fresh'],
      [undecided, 'big-undecided'],
    ] as const) {
      const download = await getPayload(getRequest(`/api/v1/dead-letters/${id}/payload`, w.tokens.personal.auditor), ctx({ id }));
      expect(download.status, messageId).toBe(403);
      const text = await exported('auditor', messageId);
      const record = JSON.parse(text) as { payload: string | null; payloadMasked: boolean };
      expect(record.payloadMasked, messageId).toBe(true);
      expect(Buffer.from(record.payload ?? '', 'base64').toString('latin1')).not.toContain('4111111111111111');
    }
  });
});

describe('headers, error messages and stacks', () => {
  const SECRETS = ['jane.roe@example.com', 'bob.smith@example.com', '5555555555554444', 'GB82WEST12345698765432'];

  it('are masked for the auditor by every reader: the API detail, the list, exports, cluster samples and templates', async () => {
    const [id] = await ingest('orders', [
      {
        messageId: 'text-secrets',
        payload: b64('{"order":"clear-one"}'),
        headers: { 'x-customer': 'jane.roe@example.com', nested: { iban: 'GB82WEST12345698765432' } },
        error: {
          type: 'ChargeFailedTextSecrets',
          message: 'charge failed for bob.smith@example.com card 5555555555554444',
          stack: 'ChargeFailedTextSecrets: for bob.smith@example.com\n    at charge (lib/billing.ts:12:3)',
        },
      },
    ]);
    await drainBacklog();
    const auditor = w.tokens.personal.auditor;
    const d = await detail('auditor', id!);
    const clusterId = (d.cluster as { id: string }).id;
    const bodies: Record<string, string> = {
      detail: JSON.stringify(d),
      list: await (await getList(getRequest('/api/v1/dead-letters?source=orders&messageId=text-secrets', auditor), ctx({}))).text(),
      export: await (await getExport(getRequest('/api/v1/dead-letters/export?format=ndjson&source=orders&messageId=text-secrets', auditor), ctx({}))).text(),
      csv: await (await getExport(getRequest('/api/v1/dead-letters/export?format=csv&source=orders&messageId=text-secrets', auditor), ctx({}))).text(),
      cluster: await (await getCluster(getRequest(`/api/v1/clusters/${clusterId}`, auditor), ctx({ id: clusterId }))).text(),
      clusters: await (await getClusters(getRequest('/api/v1/clusters', auditor), ctx({}))).text(),
    };
    for (const [reader, body] of Object.entries(bodies)) {
      expect(body, reader).toContain('ChargeFailedTextSecrets');
      for (const secret of SECRETS) expect(body, `${reader} shows ${secret}`).not.toContain(secret);
    }
    // The masked message keeps its shape: the reader still sees what failed.
    expect(d.errorMessage).toBe('charge failed for b********@example.com card ************4444');
    // A role with payload.reveal sees them masked too, until it reveals (a POST, audited): then as sent.
    const admin = await detail('admin', id!);
    for (const secret of SECRETS) expect(JSON.stringify(admin), `admin without a reveal sees ${secret}`).not.toContain(secret);
    const posted = await postReveal(jsonRequest(`/api/v1/dead-letters/${id}/reveal`, w.tokens.personal.admin, { reason: 'dispute #78' }), ctx({ id: id! }));
    const { revealId } = (await posted.json()) as { revealId: string };
    const clear = (await (
      await getDetail(getRequest(`/api/v1/dead-letters/${id}?reveal=${revealId}`, w.tokens.personal.admin), ctx({ id: id! }))
    ).json()) as Record<string, unknown>;
    expect(JSON.stringify(clear)).toContain('bob.smith@example.com');
    expect((clear.headers as Record<string, unknown>)['x-customer']).toBe('jane.roe@example.com');
  });
});

describe('a reveal is a POST', () => {
  it('a GET with ?reason= (what a cross-site link or image can send) reveals nothing and writes nothing; the POST then the download with its reveal id does', async () => {
    const [id] = await ingest('orders', [
      { messageId: 'reveal-get', payload: b64('{"card":"4111111111111111"}'), error: { type: 'Declined', message: 'declined' } },
    ]);
    const reveals = () => db().auditEvent.count({ where: { action: 'payload.reveal', targetId: id! } });
    const download = (query: string) => getPayload(getRequest(`/api/v1/dead-letters/${id}/payload${query}`, w.tokens.personal.support), ctx({ id: id! }));
    const byGet = await download('?reason=cross-site%20link');
    expect(byGet.status).toBe(422);
    expect(((await byGet.json()) as { error: { message: string } }).error.message).toMatch(/POST .*reveal/);
    expect(await reveals()).toBe(0);
    const posted = await postReveal(
      jsonRequest(`/api/v1/dead-letters/${id}/reveal`, w.tokens.personal.support, { reason: 'customer dispute #77' }),
      ctx({ id: id! }),
    );
    expect(posted.status).toBe(201);
    const { revealId } = (await posted.json()) as { revealId: string };
    expect(await reveals()).toBe(1);
    const got = await download(`?reveal=${revealId}`);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).toString()).toBe('{"card":"4111111111111111"}');
    expect(await reveals()).toBe(1);
  });
});

describe('secrets on the audit trail', () => {
  // A Slack-style webhook URL is a bearer secret; so may a redrive URL be (a token in its path or query).
  const HOOK = 'http://127.0.0.1:9/services/T000/B000/XXXXHOOKSECRET';
  const REDRIVE = 'http://127.0.0.1:9/redrive/REDRIVESECRET?token=QUERYSECRET';

  it('webhook and redrive URLs are recorded as scheme and host only, and support sees no more on the policy view', async () => {
    const created = await postWebhook(jsonRequest('/api/v1/webhooks', w.tokens.personal.admin, { url: HOOK, team: 'commerce' }), ctx({}));
    expect(created.status).toBe(201);
    const patched = await patchPolicy(
      jsonRequest('/api/v1/sources/orders/policy', w.tokens.personal.lead, { redriveUrl: REDRIVE }, { method: 'PATCH' }),
      ctx({ source: 'orders' }),
    );
    expect(patched.status).toBe(200);
    const events = await db().auditEvent.findMany({ where: { action: { in: ['webhook.create', 'source.policy.update'] } } });
    const trail = JSON.stringify(events.map((e) => [e.before, e.after]));
    for (const secret of ['XXXXHOOKSECRET', 'REDRIVESECRET', 'QUERYSECRET']) expect(trail, secret).not.toContain(secret);
    expect(trail).toContain('http://127.0.0.1:9');
    const view = await (await getPolicy(getRequest('/api/v1/sources/orders/policy', w.tokens.personal.support), ctx({ source: 'orders' }))).text();
    for (const secret of ['REDRIVESECRET', 'QUERYSECRET']) expect(view, secret).not.toContain(secret);
    // The source's owners, who change it, still read it whole.
    const owner = (await (await getPolicy(getRequest('/api/v1/sources/orders/policy', w.tokens.personal.lead), ctx({ source: 'orders' }))).json()) as {
      source: { redriveUrl: string };
    };
    expect(owner.source.redriveUrl).toBe(REDRIVE);
  });

  it('a redrive URL reaches the source API, the redrive preview and the redrive.start event as scheme and host only', async () => {
    // partner-webhooks: an ingest-fed source (finance), redriven by a POST to its redrive URL.
    const source = 'partner-webhooks';
    const patched = await patchPolicy(
      jsonRequest(`/api/v1/sources/${source}/policy`, w.tokens.personal.admin, { redriveUrl: REDRIVE }, { method: 'PATCH' }),
      ctx({ source }),
    );
    expect(patched.status).toBe(200);
    const deadLetters = [{ messageId: 'redrive-url-secret', payload: b64('{"n":1}'), error: { type: 'RedriveUrlSecret', message: 'x' } }];
    expect((await postBatch(jsonRequest(`/api/v1/sources/${source}/dead-letters`, w.tokens.ingest.partner, { deadLetters }), ctx({ source }))).status).toBe(
      200,
    );
    const reader = w.tokens.personal.financeSupport;
    const bodies = {
      source: await (await getSource(getRequest(`/api/v1/sources/${source}`, reader), ctx({ source }))).text(),
      sources: await (await getSources(getRequest('/api/v1/sources', reader), ctx({}))).text(),
      preview: await (await getRedrivePreview(getRequest(`/api/v1/redrives/preview?source=${source}&errorType=RedriveUrlSecret`, reader), ctx({}))).text(),
    };
    const started = await postRedrive(
      jsonRequest('/api/v1/redrives', reader, { selection: { filter: { source, errorType: 'RedriveUrlSecret' } }, reason: 'url check' }),
      ctx({}),
    );
    expect(started.status).toBe(201);
    const task = (await started.json()) as { id: string };
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'redrive.start', targetId: task.id } });
    const all = { ...bodies, task: JSON.stringify(task), event: JSON.stringify([event.after, event.result]) };
    for (const [where, body] of Object.entries(all)) {
      for (const secret of ['REDRIVESECRET', 'QUERYSECRET']) expect(body, `${secret} in ${where}`).not.toContain(secret);
    }
    expect(JSON.stringify(event.after)).toContain('POST http://127.0.0.1:9');
    await db().redriveTask.update({ where: { id: task.id }, data: { status: 'cancelled', finishedAt: new Date() } });
  });
});

describe('bulk export with payloads', () => {
  it('masks without a reveal; reveals only as a POST with a reason, and records what it revealed (count and selection)', async () => {
    await ingest('orders', [
      { messageId: 'export-reveal-1', payload: b64('{"card":"4111111111111111"}'), error: { type: 'ExportReveal', message: 'x' } },
      { messageId: 'export-reveal-2', payload: b64('{"plain":true}'), error: { type: 'ExportReveal', message: 'x' } },
    ]);
    const url = '/api/v1/dead-letters/export?format=ndjson&payload=true&source=orders&errorType=ExportReveal';
    const before = await db().auditEvent.count({ where: { action: 'payload.reveal' } });
    const masked = await getExport(getRequest(url, w.tokens.personal.support), ctx({}));
    expect(masked.status).toBe(200);
    expect(await masked.text()).not.toContain(b64('{"card":"4111111111111111"}'));
    const link = await getExport(getRequest(`${url}&revealReason=${encodeURIComponent('chargeback batch #9')}`, w.tokens.personal.support), ctx({}));
    expect(link.status).toBe(422);
    expect(await db().auditEvent.count({ where: { action: 'payload.reveal' } })).toBe(before);
    const ok = await postExport(jsonRequest(url, w.tokens.personal.support, { revealReason: 'chargeback batch #9' }), ctx({}));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain(b64('{"card":"4111111111111111"}'));
    const reveal = await db().auditEvent.findFirstOrThrow({ where: { action: 'payload.reveal' }, orderBy: { id: 'desc' } });
    expect(reveal).toMatchObject({ count: 1, reason: 'chargeback batch #9', actorEmail: 'support@example.com' });
    expect(reveal.selection).toMatchObject({ filter: { errorType: 'ExportReveal' } });
  });
});

describe('a cut error text is masked before it is cut', () => {
  it('shows no card digits or e-mail local part when the message is cut inside them, in the list or the cluster samples', async () => {
    const filler = 'x'.repeat(485);
    await ingest('orders', [
      { messageId: 'cut-card', payload: b64('{"n":1}'), error: { type: 'CutCard', message: `${filler} card 4111111111111111 declined` } },
      { messageId: 'cut-mail', payload: b64('{"n":2}'), error: { type: 'CutCard', message: `${filler.slice(0, 490)} jane.doe@example.com bounced` } },
    ]);
    // Cluster samples are cut at 1,000 characters.
    const [id] = await ingest('orders', [
      { messageId: 'cut-sample', payload: b64('{"n":3}'), error: { type: 'CutSample', message: `${'x'.repeat(985)} card 4111111111111111 declined` } },
    ]);
    for (const who of ['auditor', 'admin', 'support'] as const) {
      const r = await getList(getRequest('/api/v1/dead-letters?errorType=CutCard', w.tokens.personal[who]), ctx({}));
      const listed = ((await r.json()) as { deadLetters: { errorMessage: string }[] }).deadLetters;
      expect(listed, who).toHaveLength(2);
      for (const d of listed) {
        expect(d.errorMessage, who).not.toMatch(/\d{5,}/);
        expect(d.errorMessage, who).not.toMatch(/jane/);
      }
    }
    const { clusterId } = await detail('admin', id!);
    const cluster = await (
      await getCluster(getRequest(`/api/v1/clusters/${String(clusterId)}`, w.tokens.personal.auditor), ctx({ id: String(clusterId) }))
    ).text();
    expect(cluster).not.toMatch(/\d{5,}/);
    expect(cluster).not.toMatch(/jane/);
  });
});

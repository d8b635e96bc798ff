// The nasty-payload corpus round-trips ingest → store → API download → viewer, SHA-256 equal at
// every step, and the viewer renders each one without error and without live markup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { closeDb, db } from '@/lib/db';
import { closeIngestSql } from '@/lib/ingest/ingest-sql';
import { prettyJson, viewPayload, type PayloadMode } from '@/lib/deadletters/payload-view';
import { POST as postBatch } from '@/app/api/v1/sources/[source]/dead-letters/route';
import { POST as postRaw } from '@/app/api/v1/sources/[source]/dead-letters/raw/route';
import { GET as getPayload } from '@/app/api/v1/dead-letters/[id]/payload/route';
import { GET as getDetail } from '@/app/api/v1/dead-letters/[id]/route';
import { PayloadViewer } from '@/app/(dashboard)/dead-letters/[id]/payload-viewer';
import { nastyPayloads, type NastyPayload } from '../fixtures/payloads/corpus';
import { drainBacklog } from '@/lib/search';
import { resetDatabase } from '../support/db';
import { b64, BASE, ctx, getRequest, jsonRequest, world, type World } from './deadletters-world';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
type Recorded = { messageId: string; id: string; sha256: string; created: boolean };

describe('nasty payloads, byte for byte', () => {
  let w: World;
  const corpus = nastyPayloads();
  const stored = new Map<string, { batch: Recorded; raw: Recorded }>();

  beforeAll(async () => {
    await resetDatabase();
    w = await world();
    const r = await postBatch(
      jsonRequest('/api/v1/sources/orders/dead-letters', w.tokens.ingest.orders, {
        deadLetters: corpus.map((p) => ({ messageId: `batch-${p.name}`, payload: b64(p.bytes), contentType: p.contentType })),
      }),
      ctx({ source: 'orders' }),
    );
    expect(r.status).toBe(200);
    const { items } = (await r.json()) as { items: Recorded[] };
    for (const [i, p] of corpus.entries()) {
      const raw = await postRaw(
        new Request(`${BASE}/api/v1/sources/orders/dead-letters/raw`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${w.tokens.ingest.orders}`,
            'triage-message-id': `raw-${p.name}`,
            ...(p.contentType ? { 'content-type': p.contentType } : {}),
          },
          body: p.bytes as BodyInit,
        }),
        ctx({ source: 'orders' }),
      );
      expect(raw.status, p.name).toBe(201);
      stored.set(p.name, { batch: items[i]!, raw: (await raw.json()) as Recorded });
    }
  });
  afterAll(async () => {
    await closeIngestSql();
    await closeDb();
  });

  const download = async (id: string) => {
    const r = await getPayload(getRequest(`/api/v1/dead-letters/${id}/payload`, w.tokens.personal.support), ctx({ id }));
    expect(r.status).toBe(200);
    return { bytes: new Uint8Array(await r.arrayBuffer()), length: r.headers.get('content-length'), type: r.headers.get('content-type') };
  };

  it.each(nastyPayloads().map((p) => [p.name, p] as const))('%s: ingest (batch and raw) → store → download, SHA-256 equal', async (name, p: NastyPayload) => {
    const expected = sha(p.bytes);
    const { batch, raw } = stored.get(name)!;
    for (const rec of [batch, raw]) {
      expect(rec.sha256).toBe(expected);
      const row = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(rec.id) }, select: { payload: true, payloadSha256: true, payloadSize: true } });
      expect(sha(row.payload!)).toBe(expected);
      expect(row).toMatchObject({ payloadSha256: expected, payloadSize: p.bytes.byteLength });
      const got = await download(rec.id);
      expect(sha(got.bytes)).toBe(expected);
      expect(got.length).toBe(String(p.bytes.byteLength));
      expect(got.type).toBe(p.contentType ?? 'application/octet-stream');
      const detail = (await (await getDetail(getRequest(`/api/v1/dead-letters/${rec.id}`, w.tokens.personal.support), ctx({ id: rec.id }))).json()) as {
        sha256: string;
      };
      expect(detail.sha256).toBe(expected);
    }
  });

  it.each(nastyPayloads().map((p) => [p.name, p] as const))('%s: the viewer renders every mode, inert', async (_name, p: NastyPayload) => {
    const view = viewPayload(p.bytes);
    expect(view.size).toBe(p.bytes.byteLength);
    for (const mode of ['json', 'text', 'hex'] as PayloadMode[]) {
      const html = renderToString(createElement(PayloadViewer, { view, mode, hrefFor: (m: PayloadMode) => `?view=${m}` }));
      expect(html).toContain('data-testid="payload-viewer"');
      // Markup in a payload arrives as text: escaped, never a tag.
      expect(html).not.toMatch(/<(script|img|svg|iframe|object)\b/i);
      if (p.liveMarkup) {
        expect(html).not.toContain(p.liveMarkup);
        if (mode === 'text') expect(html).toContain('&lt;script&gt;');
      }
    }
  });

  it('chooses a view that fits each payload', () => {
    const v = Object.fromEntries(nastyPayloads().map((p) => [p.name, viewPayload(p.bytes)]));
    expect(v.empty).toMatchObject({ size: 0, utf8: true, json: null, mode: 'text' });
    expect(v['invalid-utf8']).toMatchObject({ utf8: false, json: null, mode: 'hex' });
    expect(v['nul-bytes']!.text).toContain('\u2400');
    expect(v['bom-json']).toMatchObject({ bom: true, mode: 'json' });
    expect(v['bom-json']!.json).toContain('"gift": true');
    for (const deep of ['deep-array-json', 'deep-object-json']) {
      expect(v[deep]).toMatchObject({ json: null, mode: 'text' });
      expect(v[deep]!.jsonNote).toContain('nested deeper');
    }
    expect(v['big-numbers-json']!.json).toContain('12345678901234567890');
    expect(v['big-numbers-json']!.json).toContain('"\\u0000\\ud800"');
    expect(v['control-characters']!.text).toBe(
      '\u2400\u2401\u2402\u2403\u2404\u2405\u2406\u2407\u2408\t\n\u240b\u240c\r\u240e\u240f\u2410\u2411\u2412\u2413\u2414\u2415\u2416\u2417\u2418\u2419\u241a\u241b\u241c\u241d\u241e\u241f\u2421',
    );
    expect(v['five-mb-binary']).toMatchObject({ textTruncated: true, hexTruncated: true, mode: 'hex' });
    expect(v['five-mb-binary']!.hex.split('\n')).toHaveLength(1024);
    expect(v['text-over-windows']).toMatchObject({ utf8: true, textTruncated: true });
    expect(prettyJson('{"a":[],"b":{},"c":[1,{"d":"x,y:z"}]}')).toBe('{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    {\n      "d": "x,y:z"\n    }\n  ]\n}');
  });

  it('keeps searchable text only for UTF-8 payloads, cut at a character boundary', async () => {
    await drainBacklog();
    const rows = await db().deadLetter.findMany({ where: { messageId: { startsWith: 'batch-' } }, select: { messageId: true, search: true } });
    expect(rows.length).toBeGreaterThan(5);
    const text = Object.fromEntries(rows.map((r) => [r.messageId, r.search?.payloadText]));
    expect(text['batch-invalid-utf8']).toBeNull();
    expect(text['batch-five-mb-binary']).toBeNull();
    expect(text['batch-nul-bytes']).not.toContain('\u0000');
    expect(text['batch-text-over-windows']).toBe('€'.repeat(4096));
  });
});

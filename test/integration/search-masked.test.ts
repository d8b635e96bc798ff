// Searching inside masked values is a look at sensitive data: a match, or its absence, tells
// whether a dead letter holds a value. So no role's search matches masked text by default, and
// one that does is a reveal: the permission, a reason, an event on the audit trail, and a
// limited time, as the payload's own reveal.
import { describe, expect, it } from 'vitest';
import { db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { POST as postSearchReveal } from '@/app/api/v1/dead-letters/search-reveal/route';
import { GET as getExport, POST as postExport } from '@/app/api/v1/dead-letters/export/route';
import { drainBacklog } from '@/lib/search';
import { POST as postReveal } from '@/app/api/v1/dead-letters/[id]/reveal/route';
import { createPersonalToken } from '@/lib/admin/tokens';
import { setAssistantRoles } from '@/lib/auth/assistant-access';
import { SYSTEM } from '@/lib/auth';
import { freshDatabase } from '../support/lifecycle';
import { ctx, getRequest, jsonRequest, listAs, world, type Who, type World } from './deadletters-world';

const CARD = '4111111111111111';
type Page = { deadLetters: { messageId: string; masked: boolean; preview: string | null }[]; count?: { count: number } };

describe('search inside masked values', () => {
  let w: World;

  freshDatabase({
    seed: async () => {
      w = await world();
      for (const s of [w.sources.orders, w.sources.payments]) {
        await db().source.update({ where: { id: s.id }, data: { sensitivePaths: ['$.card.number'] } });
        await recordDeadLetters(s, [
          {
            messageId: `${s.name}-card`,
            payload: new TextEncoder().encode(`{"amount":12,"card":{"number":"${CARD}","holder":"Ann"}}`),
            contentType: 'application/json',
            reason: 'Rejected',
            errorType: 'Declined',
            errorMessage: 'card declined',
            deadAt: new Date(),
          },
        ]);
      }
      await drainBacklog();
    },
  });

  const list = (who: Who, query: string) => listAs<Page & { error?: { message: string; field?: string } }>(w, who, query);
  const reveal = async (who: Who, body: unknown) => {
    const r = await postSearchReveal(jsonRequest('/api/v1/dead-letters/search-reveal', w.tokens.personal[who], body), ctx({}));
    return { status: r.status, body: (await r.json()) as { revealId: string; expiresAt: string; error?: { message: string } } };
  };

  it('matches no masked value for any role without a search reveal, even one allowed to reveal', async () => {
    for (const who of ['support', 'lead', 'admin', 'auditor', 'financeSupport'] as const) {
      const { status, body } = await list(who, `q=${CARD}&count=true`);
      expect(status, who).toBe(200);
      expect(body.deadLetters, who).toEqual([]);
      expect(body.count?.count, who).toBe(0);
    }
    // The error text holds no sensitive value: it is found as before.
    expect((await list('admin', 'q=declined')).body.deadLetters).toHaveLength(2);
  });

  it('a search reveal needs a reason, is audited, and matches masked values of the sources its user may read', async () => {
    expect((await reveal('support', {})).status).toBe(422);
    expect((await reveal('auditor', { reason: 'curious' })).status).toBe(403);

    const granted = await reveal('support', { reason: 'customer asks where order with card …1111 went' });
    expect(granted.status).toBe(201);
    const found = await list('support', `q=${CARD}&reveal=${granted.body.revealId}&count=true`);
    expect(found.status).toBe(200);
    // Found in the support engineer's own team's source only, and still shown masked.
    expect(found.body.deadLetters.map((d) => d.messageId)).toEqual(['orders-card']);
    expect(found.body.deadLetters[0]).toMatchObject({ masked: true, preview: null });
    expect(found.body.count?.count).toBe(1);

    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'payload.reveal', targetType: 'search' } });
    expect(event).toMatchObject({ actorEmail: 'support@example.com', reason: 'customer asks where order with card …1111 went' });
    // What was searched for is not copied onto the trail (auditors would read the value there).
    expect(JSON.stringify(event, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).not.toContain(CARD);
  });

  it("refuses someone else's or a made-up search reveal, naming the field", async () => {
    const mine = await reveal('admin', { reason: 'incident review' });
    for (const id of [mine.body.revealId, '999999', 'x']) {
      const r = await list('support', `q=${CARD}&reveal=${id}`);
      expect(r.status).toBe(422);
      expect(r.body.error?.field ?? r.body.error?.message).toMatch(/reveal/);
    }
  });

  it('an export, revealing or not, finds no dead letter by a masked value, and its event says no count of one', async () => {
    const url = `/api/v1/dead-letters/export?format=ndjson&payload=false&q=${CARD}`;
    const plain = await getExport(getRequest(url, w.tokens.personal.admin), ctx({}));
    expect((await plain.text()).trim()).toBe('');
    const revealing = await postExport(jsonRequest(url, w.tokens.personal.admin, { revealReason: 'chargeback batch #9' }), ctx({}));
    expect(revealing.status).toBe(200);
    expect((await revealing.text()).trim()).toBe('');
    const events = await db().auditEvent.findMany({ where: { action: 'deadletter.export' }, orderBy: { id: 'asc' } });
    expect(events.map((e) => e.count)).toEqual([0, 0]);
  });

  it("an assistant's token reveals nothing on the REST API either: no payload reveal, no search reveal", async () => {
    await setAssistantRoles(SYSTEM, { roles: ['support', 'lead', 'admin', 'auditor'] });
    const { token } = await createPersonalToken(SYSTEM, 'admin@example.com', 'assistant', { scopes: ['assistant'] });
    const r = await postSearchReveal(jsonRequest('/api/v1/dead-letters/search-reveal', token, { reason: 'the user asked me to' }), ctx({}));
    expect(r.status).toBe(403);
    const [card] = await db().deadLetter.findMany({ where: { messageId: 'orders-card' }, select: { id: true } });
    const id = card!.id.toString();
    const p = await postReveal(jsonRequest(`/api/v1/dead-letters/${id}/reveal`, token, { reason: 'the user asked me to' }), ctx({ id }));
    expect(p.status).toBe(403);
    expect(await db().auditEvent.count({ where: { action: 'payload.reveal' } })).toBe(0);
  });
});

// A Redis that refuses the credentials is said as such by the Redis connectors (BullMQ, Sidekiq), not
// as "unreachable": ioredis rejects the connect with "Connection is closed." and reports WRONGPASS
// only as an error event. On a Redis server of the test's own with an ACL user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { connectorSourceOf } from '@/lib/connectors';
import { db } from '@/lib/db';
import { createSource } from '@/lib/sources/create-source';
import { connectorTestLifecycle } from './connectors-rabbitmq-support';
import { startPrivateRedis, type PrivateRedis } from './connectors-sidekiq-support';

let redis: PrivateRedis;

describe('a Redis connector given a wrong password', () => {
  connectorTestLifecycle(async () => {});
  beforeAll(async () => {
    redis = await startPrivateRedis();
    await redis.client.call('ACL', 'SETUSER', 'app', 'on', '>right-pass', '~*', '+@all');
  });
  afterAll(async () => {
    await redis?.destroy();
  });

  it('says the credentials were refused, without the password', async () => {
    await createTeam(SYSTEM, { name: 'commerce' });
    const url = redis.url.replace('redis://', 'redis://app:s3cret-wrong@');
    const s = await createSource(SYSTEM, { name: 'emails-bull', team: 'commerce', kind: 'bullmq', connection: { queue: 'emails' }, secret: { url } });
    const c = connectorSourceOf(await db().source.findUniqueOrThrow({ where: { id: s.id } }));
    const report = await c.connector.probe(c.source);
    expect(report).toMatchObject({ ok: false, facts: { reachable: false } });
    expect(report.error).toMatch(/^Redis at redis:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/? refused the credentials: WRONGPASS/);
    expect(JSON.stringify(report)).not.toContain('s3cret-wrong');
  });
});

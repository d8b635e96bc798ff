// How an event is hashed once actor_via exists: an event without it (every event written before the
// column, and every one a person makes in person) hashes exactly as before, and "via assistant" is
// part of what the hash covers, so it cannot be added or removed afterwards unnoticed.
import { describe, expect, it } from 'vitest';
import { GENESIS_HASH, eventHash } from '@/lib/audit/canonical';
import type { HashedFields } from '@/lib/audit/canonical';

const event: HashedFields = {
  at: new Date('2026-12-07T06:00:00.000Z'),
  actorId: '00000000-0000-4000-8000-000000000001',
  actorEmail: 'support@triage.local',
  actorRole: 'support',
  action: 'deadletter.archive',
  targetType: 'dead_letter',
  targetId: '42',
  teamId: null,
  sourceId: null,
  selection: null,
  count: null,
  reason: 'test order from staging',
  before: { status: 'open' },
  after: { status: 'archived' },
  result: null,
  prevHash: GENESIS_HASH,
};

describe('the hash of an event and its via', () => {
  it('is unchanged for an event without one, absent or null', () => {
    // Computed by the hash as it was before the column: a change here would break every stored chain.
    const before = 'c92547accf4a643d996a37bd974b2287a4d65fb7d2dee041bf46cf449817d359';
    expect(eventHash(event)).toBe(before);
    expect(eventHash({ ...event, actorVia: null })).toBe(before);
    expect(eventHash({ ...event, actorVia: undefined })).toBe(before);
  });

  it('covers "assistant" when set', () => {
    expect(eventHash({ ...event, actorVia: 'assistant' })).not.toBe(eventHash(event));
  });
});

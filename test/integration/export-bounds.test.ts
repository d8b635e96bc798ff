// Export memory (memory bounded): a bulk export with payloads reads its rows in batches
// bounded by payload bytes, as the redrive claim does, not 500 full payloads a query.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { SYSTEM } from '@/lib/auth';
import { db } from '@/lib/db';
import { exportDeadLetters, exportOptions } from '@/lib/deadletters/export-dead-letters';
import { park, world } from './redrive-support';

const MiB = 1 << 20;
// The export's documented bound on the payload bytes of one batch (lib/deadletters/export-dead-letters.ts).
const BOUND = 8 * MiB;

/**
 * `n` dead letters parked on a new world's partner source, each payload `size` bytes of `hex`, then
 * that source's export with payloads in `format`: its text, and the batches it read.
 */
async function exportOfParked(n: number, prefix: string, size: number, hex: string, format: 'ndjson' | 'csv') {
  const w = await world();
  await park(w.partner, n, { prefix });
  await db().$executeRaw`UPDATE dead_letters SET payload = decode(repeat(${hex}, ${size}::int), 'hex'), payload_size = ${size}
    WHERE source_id = ${w.partner.id}::uuid`;
  const batches: { rows: number; payloadBytes: number }[] = [];
  const x = await exportDeadLetters({ ...SYSTEM, label: 'test' }, { source: w.partner.name }, exportOptions.parse({ format, payload: 'true' }), {
    onBatch: (b) => batches.push(b),
  });
  return { text: await new Response(x.stream).text(), batches };
}

// Each test parks payloads of tens of MiB.
describe('export byte bounds', { timeout: 120_000 }, () => {
  freshDatabase();

  it('reads an export of 12 dead letters of 3 MiB in batches of at most 8 MiB of payload, and streams every one', async () => {
    const { text, batches } = await exportOfParked(12, 'exp-big', 3 * MiB, 'cd', 'ndjson');
    const records = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { messageId: string; payload: string });
    expect(records.map((r) => r.messageId).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `exp-big-${i}`).sort());
    for (const r of records) expect(Buffer.from(r.payload, 'base64').byteLength).toBe(3 * MiB);

    expect(batches.reduce((a, b) => a + b.rows, 0)).toBe(12);
    for (const b of batches) expect(b.payloadBytes).toBeLessThanOrEqual(BOUND);
    // Bounded, not one at a time: a batch fills up to the bound (two of 3 MiB under 8 MiB).
    expect(Math.max(...batches.map((b) => b.rows))).toBe(2);
  });

  it('still exports a single dead letter larger than the bound, alone in its batch', async () => {
    const { text, batches } = await exportOfParked(3, 'exp-huge', 9 * MiB, 'ef', 'csv');
    const lines = text.trim().split('\r\n');
    expect(lines).toHaveLength(4);
    expect(batches.map((b) => b.rows)).toEqual([1, 1, 1]);
  });
});

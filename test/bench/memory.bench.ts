// Memory of bulk work on large payloads: the peak RSS of a redrive and of an export of 200 dead
// letters of 10 MiB each (2 GiB of payload), and of a bulk transform of 60 such JSON payloads
// (600 MiB, each copy stored as a version), against a target
// of ≤ 256 MiB of growth over the process's own RSS measured just before the work. Each runs in a
// child process of its own (its own database too), the two at once, so the RSS is that work's alone;
// the HTTP receiver of the redrive is another process, reading and dropping bodies.
//   npx tsx test/bench/run.ts memory
import { spawn } from 'node:child_process';
import type { BenchResult } from './run';
import { finishChild, runBenchChild } from './support';
import { createTeam } from '@/lib/admin/teams';
import { SYSTEM } from '@/lib/auth';
import { db } from '@/lib/db';
import { exportDeadLetters, exportOptions } from '@/lib/deadletters/export-dead-letters';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { startRedrive } from '@/lib/redrive';
import { destinationFor } from '@/lib/redrive/destinations';
import { startTransform } from '@/lib/redrive/edit';
import { runRedriveTask } from '@/lib/redrive/run-task';
import { createSource } from '@/lib/sources/create-source';

const FLAG = '--memory-bench-child';
const MiB = 1 << 20;
const COUNT = 200;
const SIZE = 10 * MiB;
const TARGET_GROWTH_MIB = 256;

type Work = 'redrive' | 'export' | 'transform';
/** A transform stores every copy as a version: fewer, to keep the default bench's time. */
const countOf = (work: Work) => (work === 'transform' ? 60 : COUNT);

interface Measured {
  work: Work;
  items: number;
  seconds: number;
  baseRssMib: number;
  peakRssMib: number;
  /** The largest batch of payload bytes the work held (its byte bound at work). */
  maxBatchMib: number;
}

/** A receiver in a process of its own: answers 200 to every request once its body is read. */
async function startReceiver(): Promise<{ url: string; stop: () => void }> {
  const code = `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.writeHead(200).end()); });
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const p = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    p.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    p.once('exit', () => reject(new Error('receiver exited')));
  });
  return { url: `http://127.0.0.1:${port}/redrive`, stop: () => p.kill() };
}

async function child(work: Work): Promise<void> {
  const log = (m: string) => process.stderr.write(`[memory bench ${work}] ${m}\n`);
  const gc = (globalThis as { gc?: () => void }).gc;
  const actor = { ...SYSTEM, label: 'bench' };

  await createTeam(SYSTEM, { name: 'bench' });
  const source = await createSource(SYSTEM, { name: 'bench-large', team: 'bench', kind: 'ingest' });
  const t0 = performance.now();
  const count = countOf(work);
  await recordDeadLetters(
    source,
    Array.from({ length: count }, (_, i) => ({
      messageId: `large-${i}`,
      payload: new TextEncoder().encode('{}'),
      contentType: 'application/octet-stream',
      reason: 'Rejected' as const,
      errorType: 'SchemaError',
      errorMessage: 'unknown field "gift"',
    })),
  );
  // The 10 MiB payloads are made by Postgres (compressible, so the database stays small on disk):
  // this process never holds them while seeding.
  // A transform's are JSON (a field to remove and a 10 MiB string), the others' plain bytes.
  const json = work === 'transform';
  for (let i = 0; i < count; i += 20) {
    await db().$executeRaw`UPDATE dead_letters SET payload = convert_to(CASE WHEN ${json} THEN '{"gift":true,"blob":"' || repeat('a', ${SIZE - 32}::int) || '"}'
        ELSE repeat('a', ${SIZE}::int) END, 'UTF8'), payload_size = ${SIZE}
      WHERE id IN (SELECT id FROM dead_letters WHERE source_id = ${source.id}::uuid ORDER BY id OFFSET ${i} LIMIT 20)`;
  }
  log(`seeded ${count} dead letters of ${SIZE / MiB} MiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const receiver = work === 'redrive' ? await startReceiver() : null;
  if (receiver) await db().source.update({ where: { id: source.id }, data: { redriveUrl: receiver.url, redriveSecret: 'a-bench-secret' } });

  gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  let maxBatch = 0;
  let items = 0;
  const t = performance.now();
  if (work === 'redrive') {
    const task = await startRedrive(actor, { selection: { source: source.name }, ratePerSecond: 1_000, outcomeWindowSeconds: 1 });
    const end = await runRedriveTask(task.id, {
      destinationFor: (s, opts) => {
        const real = destinationFor(s, opts);
        return {
          ...real,
          deliver: (batch, signal) => {
            maxBatch = Math.max(
              maxBatch,
              batch.reduce((a, m) => a + m.payload.byteLength, 0),
            );
            return real.deliver(batch, signal);
          },
        };
      },
    });
    items = await db().redriveItem.count({ where: { taskId: task.id, state: { not: 'pending' } } });
    if (end !== 'completed') throw new Error(`redrive ended ${end}`);
  } else if (work === 'transform') {
    const r = await startTransform(
      actor,
      { selection: { source: source.name }, transform: [{ op: 'remove', path: '$.gift' }], reason: 'bench', ratePerSecond: 1_000 },
      undefined,
      {
        onPage: (p) => (maxBatch = Math.max(maxBatch, p.payloadBytes)),
      },
    );
    items = r.task.total;
  } else {
    const x = await exportDeadLetters(actor, { source: source.name }, exportOptions.parse({ format: 'ndjson', payload: 'true' }), {
      onBatch: (b) => (maxBatch = Math.max(maxBatch, b.payloadBytes)),
    });
    const reader = x.stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) items++;
      peak = Math.max(peak, process.memoryUsage().rss);
    }
  }
  clearInterval(sampler);
  const seconds = (performance.now() - t) / 1000;
  log(`${items} items in ${seconds.toFixed(1)} s, peak RSS ${(peak / MiB).toFixed(0)} MiB over ${(base / MiB).toFixed(0)} MiB`);
  receiver?.stop();
  await finishChild({ work, items, seconds, baseRssMib: base / MiB, peakRssMib: peak / MiB, maxBatchMib: maxBatch / MiB } satisfies Measured);
}

export async function run(): Promise<BenchResult[]> {
  // The two run at once: each figure is its own process's RSS, and the default bench must fit 15
  // minutes; their durations (information) are longer for sharing the machine.
  const works = ['redrive', 'export', 'transform'] as const;
  const measured = await Promise.all(
    works.map((work) =>
      runBenchChild<Measured>(`memory_${work}`, import.meta.url, `${FLAG}=${work}`, {
        nodeArgs: ['--expose-gc'],
        timeoutMs: 400_000,
        // The redrive's receiver is on loopback.
        env: { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' },
      }),
    ),
  );
  const results: BenchResult[] = [];
  for (const [i, work] of works.entries()) {
    const m = measured[i]!;
    results.push({
      name: `${work} of ${m.items}/${countOf(work)} dead letters of ${SIZE / MiB} MiB: peak RSS (${m.seconds.toFixed(1)} s, largest batch ${m.maxBatchMib.toFixed(1)} MiB)`,
      value: Number(m.peakRssMib.toFixed(1)),
      unit: 'MiB',
      baseline: { name: 'RSS before the work', value: Number(m.baseRssMib.toFixed(1)) },
      target: `growth ≤ ${TARGET_GROWTH_MIB} MiB over the baseline`,
      met: m.items === countOf(work) && m.peakRssMib - m.baseRssMib <= TARGET_GROWTH_MIB,
    });
  }
  return results;
}

const childArg = process.argv.find((a) => a.startsWith(`${FLAG}=`));
if (childArg) {
  child(childArg.slice(FLAG.length + 1) as Work).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

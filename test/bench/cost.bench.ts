// The cost of hostile input: the masking verdict of a 10 MiB payload shaped against the detectors
// (IBAN-like one-character groups, digit runs with separators, "@" after "@") against that of an
// ordinary 10 MiB JSON payload (target ≤ 2×), and the stack-frame parse of crafted 8 KiB lines
// against 8 KiB of ordinary library frames (target ≤ 2×). Each figure is the fastest of a few
// runs: this machine is shared, and the fastest is the one least disturbed by others.
//   npx tsx test/bench/run.ts cost
import { topInAppFrame } from '@/lib/clustering/stack-frame';
import { payloadVerdict } from '@/lib/masking/verdict';
import type { BenchResult } from './run';

const MiB = 1 << 20;
const SIZE = 10 * MiB;
const RATIO_TARGET = 2;

const repeatTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Dead-letter-like JSON records: ids, names, timestamps, amounts, free text. */
function ordinaryPayload(): Buffer {
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < SIZE; i++) {
    const row = JSON.stringify({
      id: `ord_${(i * 7919).toString(36)}`,
      customer: { name: `Customer ${i}`, tier: i % 3 === 0 ? 'GOLD' : 'standard', since: 1_700_000_000 + i },
      createdAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      amount: (i % 1000) + 0.99,
      currency: 'EUR',
      note: 'payment declined by the issuer, retry scheduled',
    });
    rows.push(row);
    size += row.length + 1;
  }
  return Buffer.from(`[${rows.join(',')}]`.slice(0, SIZE), 'latin1');
}

const hostile: Record<string, string> = {
  'IBAN-shaped one-character groups': repeatTo('DE12 A B C D E F G H I J K L M N O P Q R S T U V W X Y Z A B C D E ', SIZE),
  'digit runs with separators': repeatTo('1 1 1 1 1 1 1 1 1 1 1-1-1-1-1-1-1-1-1-1-1 1 1 1 1 1111111111111111111111 ', SIZE),
  'e-mail-ish runs': repeatTo('a@b.c-a@', SIZE),
};

/** The fastest of `rounds` runs of `work`, in ms. */
function fastest(rounds: number, work: () => unknown): number {
  work(); // warm the JIT
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    work();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

const verdict = (payload: Buffer) => payloadVerdict(payload, { sensitive: false, paths: [] });

const crafted: Record<string, string> = {
  'at a.a.a.… (no parentheses)': `at ${repeatTo('a.', 8189)}`,
  'at a.a.a.…(x (unclosed)': `at ${repeatTo('a.', 8187)}(x`,
  "Ruby-like a:1:in 'x… (unclosed)": repeatTo("a:1:in 'x", 8192),
  'repeated " panicked at " (no location)': repeatTo(' panicked at x', 8192),
};

// 8 KiB of node_modules frames: all library code, so the parser reads every line, as with the crafted ones.
const ordinaryStack = `Error: boom\n${repeatTo('    at Object.handle (/srv/app/node_modules/express/lib/router/layer.js:95:5)\n', 8192 - 12)}`;

/** A hostile input's figure against the ordinary input's, held to at most RATIO_TARGET× it. */
function againstOrdinary(name: string, value: number, unit: string, ordinary: { name: string; value: number }): BenchResult {
  return {
    name,
    value: Number(value.toFixed(1)),
    unit,
    baseline: { name: ordinary.name, value: Number(ordinary.value.toFixed(1)) },
    target: `≤ ${RATIO_TARGET}× ordinary`,
    met: value <= RATIO_TARGET * ordinary.value,
  };
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const ordinary = ordinaryPayload();
  if (verdict(ordinary)) throw new Error('the ordinary payload must hold no detected value');
  const ordinaryMs = fastest(5, () => verdict(ordinary));
  for (const [name, text] of Object.entries(hostile)) {
    const payload = Buffer.from(text, 'latin1');
    if (verdict(payload)) throw new Error(`${name}: the hostile payload must hold no detected value`);
    const ms = fastest(5, () => verdict(payload));
    results.push(againstOrdinary(`cost.verdict 10 MiB ${name}`, ms, 'ms', { name: 'ordinary 10 MiB JSON', value: ordinaryMs }));
  }

  const LINES = 200;
  const parse = (stack: string) => () => {
    for (let i = 0; i < LINES; i++) topInAppFrame(stack);
  };
  const ordinaryUs = (fastest(5, parse(ordinaryStack)) * 1000) / LINES;
  for (const [name, line] of Object.entries(crafted)) {
    const us = (fastest(5, parse(line)) * 1000) / LINES;
    results.push(againstOrdinary(`cost.stack parse 8 KiB ${name}`, us, 'µs', { name: '8 KiB of ordinary library frames', value: ordinaryUs }));
  }
  return results;
}

// npm run cluster -- FILE — prints one cluster key a line for an NDJSON file of errors
// (`{ "message": …, "type"?: …, "stack"?: … }` a line), in order; blank lines are skipped.
//   --ingest   the ingest fingerprint only (no second-stage template merge)
// Used to score clustering on labelled corpora with test/support/grouping-accuracy.ts.

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { fingerprint, type ErrorInput } from '@/lib/clustering/fingerprint';
import { TemplateMerger } from '@/lib/clustering/template-merger';

function toErrorInput(value: unknown, lineNumber: number): ErrorInput {
  if (typeof value !== 'object' || value === null) throw new Error(`line ${lineNumber}: not a JSON object`);
  const { message, type, stack } = value as Record<string, unknown>;
  return {
    message: typeof message === 'string' ? message : message == null ? '' : JSON.stringify(message),
    type: typeof type === 'string' ? type : null,
    stack: typeof stack === 'string' ? stack : null,
  };
}

async function main(argv: string[]): Promise<void> {
  const ingestOnly = argv.includes('--ingest');
  const file = argv.find((a) => !a.startsWith('--'));
  if (!file) {
    process.stderr.write('usage: cluster-cli.ts [--ingest] FILE.ndjson\n');
    process.exit(2);
  }
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  const merger = new TemplateMerger();
  // The merge needs the whole set of templates, so keys are printed at the end; only a small handle
  // per line is kept meanwhile.
  const handles: number[] = [];
  let out = '';
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim().length === 0) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`line ${lineNumber}: invalid JSON`);
    }
    const error = toErrorInput(parsed, lineNumber);
    const fp = fingerprint(error);
    if (ingestOnly) out += `${fp.key}\n`;
    else handles.push(merger.add({ type: error.type, template: fp.template, topFrame: fp.topFrame }));
    if (out.length > 1 << 16) {
      process.stdout.write(out);
      out = '';
    }
  }
  for (const handle of handles) {
    out += `${merger.clusterKeyOf(handle)}\n`;
    if (out.length > 1 << 16) {
      process.stdout.write(out);
      out = '';
    }
  }
  process.stdout.write(out);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`cluster-cli: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

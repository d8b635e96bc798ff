// Scores a clustering of a labelled corpus, as the log-parsing benchmarks do (Loghub's grouping
// accuracy). Imported by the clustering tests; also a CLI, for corpora kept outside the repository:
//   npx tsx test/support/grouping-accuracy.ts CORPUS.ndjson PREDICTIONS.txt
// CORPUS: one JSON object a line with a "label" field (the true group); blank lines are skipped.
// PREDICTIONS: one cluster key a line, in the corpus's order.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface GroupingScore {
  messages: number;
  trueGroups: number;
  predictedClusters: number;
  /** Of the pairs put in one cluster, the share that share a true group. */
  precision: number;
  /** Of the pairs that share a true group, the share put in one cluster. */
  recall: number;
  f1: number;
  /** The share of messages whose predicted cluster holds exactly the messages of their true group. */
  groupingAccuracy: number;
}

function groups(keys: readonly string[]): Map<string, number[]> {
  const m = new Map<string, number[]>();
  keys.forEach((k, i) => {
    const members = m.get(k);
    if (members) members.push(i);
    else m.set(k, [i]);
  });
  return m;
}

const pairs = (n: number) => (n * (n - 1)) / 2;

export function scoreGrouping(labels: readonly string[], predicted: readonly string[]): GroupingScore {
  if (predicted.length !== labels.length) {
    throw new Error(`predictions have ${predicted.length} lines, the corpus ${labels.length}`);
  }
  const truth = groups(labels);
  const clusters = groups(predicted);
  let correct = 0;
  let together = 0;
  for (const members of clusters.values()) {
    const label = labels[members[0]!]!;
    // Exactly the true group: every member carries its label, and the group has no member elsewhere.
    if (members.every((i) => labels[i] === label) && truth.get(label)!.length === members.length) correct += members.length;
    const perLabel = new Map<string, number>();
    for (const i of members) perLabel.set(labels[i]!, (perLabel.get(labels[i]!) ?? 0) + 1);
    for (const n of perLabel.values()) together += pairs(n);
  }
  const predictedPairs = [...clusters.values()].reduce((s, xs) => s + pairs(xs.length), 0);
  const truePairs = [...truth.values()].reduce((s, xs) => s + pairs(xs.length), 0);
  const precision = predictedPairs ? together / predictedPairs : 1;
  const recall = truePairs ? together / truePairs : 1;
  return {
    messages: labels.length,
    trueGroups: truth.size,
    predictedClusters: clusters.size,
    precision,
    recall,
    f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
    groupingAccuracy: labels.length ? correct / labels.length : 1,
  };
}

/** The labels of an NDJSON corpus, in order. */
export function readLabels(corpusPath: string): string[] {
  return readFileSync(corpusPath, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line, i) => {
      const { label } = JSON.parse(line) as { label?: unknown };
      if (typeof label !== 'string') throw new Error(`${corpusPath}: line ${i + 1} has no string "label"`);
      return label;
    });
}

/** Predicted keys as the cluster CLI prints them: one a line, a final newline. */
export const readPredictions = (text: string): string[] => {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
};

export function formatScore(s: GroupingScore): string {
  return [
    `messages ${s.messages}  true groups ${s.trueGroups}  predicted clusters ${s.predictedClusters}`,
    `pairwise precision ${s.precision.toFixed(4)}  recall ${s.recall.toFixed(4)}  F1 ${s.f1.toFixed(4)}`,
    `grouping accuracy ${s.groupingAccuracy.toFixed(4)}`,
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [corpusPath, predictionsPath] = process.argv.slice(2);
  if (!corpusPath || !predictionsPath) {
    console.error('usage: grouping-accuracy.ts CORPUS.ndjson PREDICTIONS.txt');
    process.exit(2);
  }
  try {
    console.log(formatScore(scoreGrouping(readLabels(corpusPath), readPredictions(readFileSync(predictionsPath, 'utf8')))));
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(2);
  }
}

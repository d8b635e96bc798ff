// The ingest-time fingerprint of a dead letter's error (docs/design.md "Clustering by error"): error
// type + the message masked into a template + the top in-app stack frame. Pure: a function of one
// error, with no state, so every worker computes the same key for the same cause.

import { hash } from 'node:crypto';
import { maskMessage } from './mask-message';
import { topInAppFrame, type StackFrame } from './stack-frame';

export interface ErrorInput {
  type?: string | null;
  message: string;
  stack?: string | null;
}

export interface Fingerprint {
  /** Short stable hash of type, template and top frame: the cluster key at ingest. */
  key: string;
  /** The message with its variable parts masked as `<*>`, tokens separated by one space. */
  template: string;
  topFrame?: StackFrame;
}

/** 16 hex characters (64 bits) of SHA-256: collisions stay negligible at millions of clusters. */
const KEY_HEX_CHARS = 16;

/** The key of a (type, template, frame) triple; the template merger keys merged clusters the same way. */
export function clusterKey(type: string, template: string, frame: StackFrame | undefined): string {
  const material = `${type}\u0001${template}\u0001${frame?.fn ?? ''}\u0001${frame?.file ?? ''}`;
  return hash('sha256', material, 'hex').slice(0, KEY_HEX_CHARS);
}

export function fingerprint(error: ErrorInput): Fingerprint {
  return fingerprintOfTemplate(error.type, maskMessage(error.message ?? '').join(' '), error.stack);
}

function fingerprintOfTemplate(type: string | null | undefined, template: string, stack: string | null | undefined): Fingerprint {
  const topFrame = topInAppFrame(stack);
  const key = clusterKey(type?.trim() ?? '', template, topFrame);
  return topFrame ? { key, template, topFrame } : { key, template };
}

/**
 * `fingerprint` for a batch: a batch repeats a handful of causes, often with messages that differ
 * only in their variable parts, so each distinct error is masked once and each distinct (type,
 * template, stack) has its frame parsed and its key hashed once. Same results as `fingerprint`.
 */
export function fingerprintCache(): (error: ErrorInput) => Fingerprint {
  // Nested maps (type, then stack, then message or template), not one key concatenated of the three:
  // each message is usually distinct, and a concatenation copies its stack and message twice per call.
  const byError: Nested = new Map();
  const byTemplate: Nested = new Map();
  return (error) => {
    const type = error.type ?? '';
    const stack = error.stack ?? '';
    const message = error.message ?? '';
    const errors = level(level(byError, type), stack);
    let fp = errors.get(message);
    if (fp) return fp;
    const template = maskMessage(message).join(' ');
    const templates = level(level(byTemplate, type), stack);
    fp = templates.get(template);
    if (!fp) templates.set(template, (fp = fingerprintOfTemplate(error.type, template, error.stack)));
    errors.set(message, fp);
    return fp;
  };
}

type Nested = Map<string, Map<string, Map<string, Fingerprint>>>;

function level<V>(m: Map<string, Map<string, V>>, k: string): Map<string, V> {
  let next = m.get(k);
  if (!next) m.set(k, (next = new Map()));
  return next;
}

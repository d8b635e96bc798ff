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
  const byError = new Map<string, Fingerprint>();
  const byTemplate = new Map<string, Fingerprint>();
  return (error) => {
    const errorKey = `${error.type ?? ''}\u0001${error.message ?? ''}\u0001${error.stack ?? ''}`;
    let fp = byError.get(errorKey);
    if (fp) return fp;
    const template = maskMessage(error.message ?? '').join(' ');
    const templateKey = `${error.type ?? ''}\u0001${template}\u0001${error.stack ?? ''}`;
    fp = byTemplate.get(templateKey);
    if (!fp) byTemplate.set(templateKey, (fp = fingerprintOfTemplate(error.type, template, error.stack)));
    byError.set(errorKey, fp);
    return fp;
  };
}

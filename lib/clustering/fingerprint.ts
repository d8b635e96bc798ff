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
  const template = maskMessage(error.message ?? '').join(' ');
  const topFrame = topInAppFrame(error.stack);
  const key = clusterKey(error.type?.trim() ?? '', template, topFrame);
  return topFrame ? { key, template, topFrame } : { key, template };
}

// What a refused value is told, in plain words: a zod issue becomes a sentence that names the field
// as its form labels it ("Reason can be at most 1,000 characters; this one has 10,000."), never its
// schema path or zod's own wording ("reason: Too big: expected string to have <=1000 characters").
// One mapping for the server actions (lib/auth/action-form.ts), the forms that call the JSON API
// and the list pages' filter line. No server imports: client components take it too.
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

const count = (n: number | bigint) => Number(n).toLocaleString('en-US');
const chars = (n: number | bigint) => `${count(n)} character${Number(n) === 1 ? '' : 's'}`;

/** zod's own wording (its English locale), which says nothing a user can act on. */
const ZOD_WORDING = /^(Invalid|Too (big|small)|Unrecognized key|Expected|Required$)/;

const ABBREVIATIONS: Record<string, string> = {
  url: 'URL',
  id: 'ID',
  ids: 'IDs',
  json: 'JSON',
  sla: 'SLA',
  http: 'HTTP',
  oidc: 'OIDC',
  sqs: 'SQS',
  nats: 'NATS',
};

/**
 * A field's name in words, for when no form labels it (a hidden field, the API's own forms):
 * `ticketUrl` → "Ticket URL", `rules.0.pattern` → "Pattern (rule 1)".
 */
export function fieldWords(path: string): string {
  const parts = path.split('.').filter(Boolean);
  const last = [...parts].reverse().find((p) => !/^\d+$/.test(p)) ?? path;
  const words = last
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .split(/\s+/)
    .map((w) => ABBREVIATIONS[w.toLowerCase()] ?? w.toLowerCase());
  const text = words.join(' ');
  const label = text.charAt(0).toUpperCase() + text.slice(1);
  const index = parts.findIndex((p) => /^\d+$/.test(p));
  return index > 0
    ? `${label} (${fieldWords(parts[index - 1]!)
        .toLowerCase()
        .replace(/s$/, '')} ${Number(parts[index]) + 1})`
    : label;
}

/** A custom message is kept; one worded as a verb phrase ("must …") follows the label, any other after a colon. */
function custom(message: string): string | undefined {
  if (!message || ZOD_WORDING.test(message)) return undefined;
  return message;
}

/**
 * What is wrong with the value, as the rest of a sentence whose subject is the field: "can be at
 * most 1,000 characters; this one has 10,000". `value`: what was sent, to say by how much.
 */
export function issuePredicate(issue: Issue, value?: unknown): string {
  switch (issue.code) {
    case 'too_big': {
      if (issue.origin === 'string') {
        const has = typeof value === 'string' ? `; this one has ${count(value.length)}` : '';
        return `can be at most ${chars(issue.maximum as number)}${has}`;
      }
      if (issue.origin === 'array' || issue.origin === 'set') return `can hold at most ${count(issue.maximum as number)}`;
      return `must be at most ${count(issue.maximum as number)}`;
    }
    case 'too_small': {
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'is required' : `needs at least ${chars(issue.minimum as number)}`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return Number(issue.minimum) <= 1 ? 'needs at least one' : `needs at least ${count(issue.minimum as number)}`;
      return `must be at least ${count(issue.minimum as number)}`;
    }
    case 'invalid_format': {
      const own = custom(issue.message);
      if (own) return own;
      switch (issue.format) {
        case 'url':
          return 'must be a full web address (https://…)';
        case 'email':
          return 'must be an e-mail address';
        case 'uuid':
        case 'guid':
          return 'must be an ID as Triage shows it';
        case 'datetime':
        case 'date':
          return 'must be a date and time';
        default:
          return 'is not in the expected form';
      }
    }
    case 'invalid_value':
      return (
        custom(issue.message) ?? (issue.values.length === 1 ? `must be ${String(issue.values[0])}` : `must be one of: ${issue.values.map(String).join(', ')}`)
      );
    case 'invalid_type':
      if (value === undefined || value === '' || issue.message.endsWith('received undefined')) return 'is required';
      if (issue.expected === 'number' || issue.expected === 'int' || issue.expected === 'bigint') return 'must be a number';
      if (issue.expected === 'date') return 'must be a date and time';
      return custom(issue.message) ?? 'is not valid here';
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return `has fields it does not take: ${issue.keys.join(', ')}`;
    default:
      return custom(issue.message) ?? 'is not valid';
  }
}

/**
 * `label` + `predicate` as one sentence: "Reason is required." or "Name: lowercase letters only.";
 * a predicate that is already a sentence (a capital first) is said as it is.
 */
export function sentence(label: string, predicate: string): string {
  if (/^[A-Z]/.test(predicate)) return bare(predicate);
  const verb = /^(must|is|are|can|cannot|needs|need|has|have|holds|should|was|names|takes|may)\b/.test(predicate);
  const text = verb ? `${label} ${predicate}` : `${label}: ${predicate}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** A sentence with no field to name (a rule across fields): its first letter capitalised. */
export function bare(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** The value at an issue's path in what was sent. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key as string];
  }
  return v;
}

/**
 * One issue as a sentence. `label` names the field (the form's label); without it, the field's
 * name in words. An issue about no field (a refine over the whole form) is its message alone.
 */
export function plainIssue(issue: Issue, opts: { label?: string; value?: unknown } = {}): string {
  const path = issue.path.map(String).join('.');
  if (!path) return issue.code === 'custom' ? bare(issue.message) : sentence('The value', issuePredicate(issue, opts.value));
  return sentence(opts.label ?? fieldWords(path), issuePredicate(issue, opts.value));
}

/**
 * The API's issue `{ path, message }` (lib/auth/guard.ts keeps that shape for API users) as a
 * sentence for a form: zod's own wording is re-read into plain words, the path named by `label`.
 */
export function plainApiIssue(issue: { path: string; message: string }, label?: string): string {
  const name = label ?? (issue.path ? fieldWords(issue.path) : '');
  const m = issue.message;
  let predicate: string | undefined;
  let r: RegExpExecArray | null;
  if ((r = /^Too big: expected string to have <=?(\d+) characters?/.exec(m))) predicate = `can be at most ${chars(Number(r[1]))}`;
  else if ((r = /^Too small: expected string to have >=?(\d+) characters?/.exec(m)))
    predicate = Number(r[1]) <= 1 ? 'is required' : `needs at least ${chars(Number(r[1]))}`;
  else if ((r = /^Too big: expected (?:number|int) to be <=?(-?[\d.]+)/.exec(m))) predicate = `must be at most ${count(Number(r[1]))}`;
  else if ((r = /^Too small: expected (?:number|int) to be >=?(-?[\d.]+)/.exec(m))) predicate = `must be at least ${count(Number(r[1]))}`;
  else if ((r = /^Too big: expected array to have <=?(\d+)/.exec(m))) predicate = `can hold at most ${count(Number(r[1]))}`;
  else if (/^Invalid URL/.test(m)) predicate = 'must be a full web address (https://…)';
  else if (/^Invalid (input: expected (number|int)|number)/.test(m)) predicate = 'must be a number';
  else if (/received undefined$/.test(m)) predicate = 'is required';
  else if ((r = /^Invalid option: expected one of (.*)$/.exec(m))) predicate = `must be one of: ${r[1]!.replace(/"/g, '').split('|').join(', ')}`;
  else if (ZOD_WORDING.test(m)) predicate = 'is not valid';
  else predicate = m;
  return name ? sentence(name, predicate) : bare(predicate);
}

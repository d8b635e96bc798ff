// A refused value is told in plain words: the field as the form labels it, what is wrong and by how
// much, never a schema path or zod's own wording (lib/plain-issues.ts).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldWords, plainApiIssue, plainIssue } from '@/lib/plain-issues';

/** The first issue of `schema` refusing `value`, as a sentence. */
function said(schema: z.ZodType, value: unknown, label?: string): string {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('accepted');
  return plainIssue(r.error.issues[0]!, { label, value: (value as Record<string, unknown>)?.[String(r.error.issues[0]!.path[0])] });
}

const INTERNAL = /Too big|Too small|Invalid input|Invalid option|expected string|<=|>=|ticketUrl|\bq:/;

describe('plainIssue', () => {
  it('says how long a text may be and how long it is, naming the label', () => {
    const s = said(z.object({ reason: z.string().max(1000) }), { reason: 'x'.repeat(10_000) }, 'Reason');
    expect(s).toBe('Reason can be at most 1,000 characters; this one has 10,000.');
  });

  it('says a blank required text is required, whatever the schema called it', () => {
    expect(said(z.object({ reason: z.string().trim().min(1, 'a reason is required') }), { reason: '' }, 'Reason')).toBe('Reason is required.');
    expect(said(z.object({ q: z.string().min(3, 'search needs at least 3 characters') }), { q: 'ab' }, 'Search payload and error text')).toBe(
      'Search payload and error text needs at least 3 characters.',
    );
  });

  it('names a field no form labels by its name in words', () => {
    expect(said(z.object({ ticketUrl: z.string().url() }), { ticketUrl: 'not a link' })).toBe('Ticket URL must be a full web address (https://…).');
    expect(fieldWords('rules.0.pattern')).toBe('Pattern (rule 1)');
    expect(fieldWords('ratePerSecond')).toBe('Rate per second');
  });

  it('lists the choices of a select', () => {
    expect(said(z.object({ role: z.enum(['support', 'lead']) }), { role: 'boss' }, 'Role')).toBe('Role must be one of: support, lead.');
  });

  it('tells numbers by their bounds', () => {
    expect(said(z.object({ n: z.coerce.number().int().min(1) }), { n: '0' }, 'Max receives')).toBe('Max receives must be at least 1.');
    expect(said(z.object({ n: z.coerce.number().int().max(5000) }), { n: '9999' }, 'Rate')).toBe('Rate must be at most 5,000.');
    expect(said(z.object({ n: z.number() }), { n: 'x' }, 'Rate')).toBe('Rate must be a number.');
    expect(said(z.object({ n: z.number() }), {}, 'Rate')).toBe('Rate is required.');
  });

  it("keeps a schema's own words, after the label", () => {
    const s = z.object({ url: z.string().refine((u) => u.startsWith('https://'), 'must start with https://') });
    expect(said(s, { url: 'http://x' }, 'Ticket')).toBe('Ticket must start with https://.');
    expect(said(z.object({ name: z.string().regex(/^[a-z]+$/, 'lowercase letters only') }), { name: 'A' }, 'Name')).toBe('Name: lowercase letters only.');
  });

  it('says a rule over the whole form without a field', () => {
    const r = z
      .object({ a: z.string().optional() })
      .refine((v) => v.a, 'nothing to change')
      .safeParse({});
    expect(plainIssue(r.error!.issues[0]!)).toBe('Nothing to change.');
  });

  it('never shows zod wording or an internal name for the usual refusals', () => {
    const schema = z.object({
      ticketUrl: z.string().url(),
      q: z.string().min(3),
      reason: z.string().max(10),
      kind: z.enum(['a', 'b']),
      n: z.number().int(),
      ramp: z.union([z.array(z.number()), z.object({ steps: z.array(z.number()) })]),
    });
    const r = schema.safeParse({ ticketUrl: 'x', q: 'a', reason: 'y'.repeat(11), kind: 'c', n: 1.5, ramp: 'fast' });
    for (const issue of r.error!.issues) expect(plainIssue(issue)).not.toMatch(INTERNAL);
  });
});

describe('plainApiIssue', () => {
  it("re-reads the API's issue into plain words with the form's label", () => {
    expect(plainApiIssue({ path: 'reason', message: 'Too big: expected string to have <=1000 characters' }, 'Reason')).toBe(
      'Reason can be at most 1,000 characters.',
    );
    expect(plainApiIssue({ path: 'ramp', message: 'Invalid input' }, 'Ramp')).toBe('Ramp is not valid.');
    expect(plainApiIssue({ path: 'ratePerSecond', message: 'Too big: expected number to be <=5000' })).toBe('Rate per second must be at most 5,000.');
    expect(plainApiIssue({ path: 'ramp', message: 'Ramp steps must not exceed the rate' }, 'Ramp')).toBe('Ramp steps must not exceed the rate.');
  });
});

// The action client's pure parts (lib/auth/action.ts): the one form rule, the field readers, the one
// error format; the guard and the round trip run in the browser suite (test/e2e/security.spec.ts).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { actionFailure, form, formFields } from '@/lib/auth/action-form';
import { AppError } from '@/lib/errors';

const data = (entries: [string, string][]) => {
  const f = new FormData();
  for (const [k, v] of entries) f.append(k, v);
  return f;
};

describe('formFields', () => {
  it('trims every value, keeps a blank field as "", and makes a repeated name a list', () => {
    const f = data([
      ['name', '  orders  '],
      ['assignee', '   '],
      ['ids', 'a'],
      ['ids', ' b '],
    ]);
    expect(formFields(f)).toEqual({ name: 'orders', assignee: '', ids: ['a', 'b'] });
  });

  it('leaves out what the form did not send, and files', () => {
    const f = data([['a', 'x']]);
    f.append('upload', new Blob(['x']), 'x.txt');
    expect(formFields(f)).toEqual({ a: 'x' });
  });
});

describe('form readers', () => {
  const schema = z.object({
    text: form.text,
    optional: form.optional,
    checkbox: form.checkbox,
    flag: form.flag,
    many: form.many,
    choice: form.optionalChoice(['a', 'b']),
  });

  it('read blank or absent fields as "", undefined, false and []', () => {
    expect(
      schema.parse(
        formFields(
          data([
            ['optional', ''],
            ['choice', ''],
          ]),
        ),
      ),
    ).toEqual({ text: '', optional: undefined, checkbox: false, flag: false, many: [], choice: undefined });
  });

  it('read filled fields', () => {
    const f = data([
      ['text', 'x'],
      ['optional', 'y'],
      ['checkbox', 'on'],
      ['flag', 'true'],
      ['many', 'one'],
      ['choice', 'b'],
    ]);
    expect(schema.parse(formFields(f))).toEqual({ text: 'x', optional: 'y', checkbox: true, flag: true, many: ['one'], choice: 'b' });
  });

  it('refuse a value outside a choice, and a blank required choice', () => {
    expect(() => schema.parse({ choice: 'c' })).toThrow(z.ZodError);
    expect(() => form.choice(['a']).parse('')).toThrow(z.ZodError);
  });
});

describe('actionFailure', () => {
  it('answers an AppError with its message', () => {
    expect(actionFailure(new AppError('forbidden', 'You do not have permission to do this'))).toEqual({ error: 'You do not have permission to do this' });
  });

  it('answers a ZodError in plain words: a sentence, and what is wrong with each field by its form name', () => {
    const e = z.object({ url: z.string().url(), team: z.string().min(1) }).safeParse({ url: 'nope', team: '' }).error!;
    expect(actionFailure(e)).toEqual({
      error: 'URL must be a full web address (https://…).',
      field: 'url',
      fields: { url: 'must be a full web address (https://…)', team: 'is required' },
    });
    const top = z
      .string()
      .refine(() => false, 'nothing to change')
      .safeParse('x').error!;
    expect(actionFailure(top)).toEqual({ error: 'Nothing to change.' });
  });

  it('says by how much a text is too long, from what the form sent', () => {
    const sent = { reason: 'x'.repeat(10_000) };
    const e = z.object({ reason: z.string().max(1000) }).safeParse(sent).error!;
    expect(actionFailure(e, sent)).toMatchObject({ field: 'reason', fields: { reason: 'can be at most 1,000 characters; this one has 10,000' } });
  });

  it("rethrows anything else (Next's redirect and notFound travel as errors)", () => {
    const redirect = Object.assign(new Error('NEXT_REDIRECT'), { digest: 'NEXT_REDIRECT;replace;/x;307;' });
    expect(() => actionFailure(redirect)).toThrow(redirect);
  });
});

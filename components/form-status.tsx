'use client';
// The answer of a form's server action, in place (lib/auth/action.ts): its message as a status, or
// its error as an alert. A field's problem is said with the field's label as the form shows it
// (components/field-label.ts), and the field is marked invalid until the next answer.
import { useLayoutEffect, useRef, useState } from 'react';
import type { ActionState } from '@/lib/auth/action-form';
import { sentence } from '@/lib/plain-issues';
import { fieldOf, labelFor } from './field-label';

export function FormStatus({ state, block }: { state: ActionState; block?: boolean }) {
  const Tag = block ? 'p' : 'span';
  const ref = useRef<HTMLElement>(null);
  const [said, setSaid] = useState<{ for: ActionState; text: string } | null>(null);
  useLayoutEffect(() => {
    const form = ref.current?.closest('form') ?? null;
    const fields = state.ok ? undefined : state.fields;
    if (!fields || !form) return;
    const marked: HTMLElement[] = [];
    for (const name of Object.keys(fields)) {
      const el = fieldOf(form, name);
      if (el && !el.hasAttribute('aria-invalid')) {
        el.setAttribute('aria-invalid', 'true');
        marked.push(el);
      }
    }
    setSaid({
      for: state,
      text: Object.entries(fields)
        .map(([name, problem]) => sentence(labelFor(form, name), String(problem)))
        .join(' '),
    });
    return () => {
      for (const el of marked) el.removeAttribute('aria-invalid');
    };
  }, [state]);
  if (state.ok) {
    return state.message ? (
      <Tag className="badge good" role="status">
        {state.message}
      </Tag>
    ) : null;
  }
  if (state.error) {
    return (
      <Tag ref={ref as never} className="error" role="alert">
        {said?.for === state ? said.text : state.error}
      </Tag>
    );
  }
  return null;
}

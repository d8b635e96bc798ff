// A field's name as its form labels it, read from the page: what a refused value's message names
// (components/form-status.tsx for the server actions, apiErrorText for the forms of the JSON API),
// so a message says "Reason to archive", never "reason". lib/plain-issues.ts words the rest.
import { fieldWords, plainApiIssue } from '@/lib/plain-issues';

/** The field of `form` an error's path is about: the name itself, a list's name, or the path's last word. */
export function fieldOf(form: HTMLFormElement, path: string): HTMLElement | null {
  const parts = path.split('.');
  const candidates = [path, path.replace(/\.\d+(\..*)?$/, ''), [...parts].reverse().find((p) => !/^\d+$/.test(p)) ?? path];
  for (const name of candidates) {
    const found = form.elements.namedItem(name);
    const el = found instanceof RadioNodeList ? (found[0] as HTMLElement | undefined) : found;
    if (el instanceof HTMLElement && !(el instanceof HTMLInputElement && el.type === 'hidden')) return el;
  }
  return null;
}

/**
 * The words of the field's label: its own text, without the control, a hint in parentheses, a
 * counter or a trailing colon ("Reason (audited)" → "Reason").
 */
export function labelOf(el: HTMLElement): string | undefined {
  const label = (el as HTMLInputElement).labels?.[0];
  if (label) {
    const copy = label.cloneNode(true) as HTMLElement;
    for (const inner of copy.querySelectorAll('input, select, textarea, datalist, button, [aria-hidden="true"]')) inner.remove();
    const text = (copy.textContent ?? '')
      .replace(/\s+/g, ' ')
      .replace(/\s*\(.*$/, '')
      .replace(/:\s*$/, '')
      .trim();
    if (text) return text.charAt(0).toUpperCase() + text.slice(1);
  }
  return el.getAttribute('aria-label') ?? undefined;
}

/** The label of the field at `path` in `form`, or the path in words. */
export function labelFor(form: HTMLFormElement | null | undefined, path: string): string {
  const el = form ? fieldOf(form, path) : null;
  return (el && labelOf(el)) ?? fieldWords(path);
}

/** An error body of the JSON API (`{ error: { message, details: { issues } } }`). */
export interface ApiErrorBody {
  error?: { message?: string; details?: Record<string, unknown> };
}

/**
 * What a form shows for a refused call to the JSON API: each issue as a sentence naming the field
 * by the form's label ("Reason can be at most 1,000 characters."), else the error's own message.
 */
export function apiErrorText(body: ApiErrorBody | null | undefined, status: number, form?: HTMLFormElement | null): string {
  const issues = body?.error?.details?.issues as { path: string; message: string }[] | undefined;
  if (issues?.length) return issues.map((i) => plainApiIssue(i, i.path ? labelFor(form, i.path) : undefined)).join(' ');
  return body?.error?.message ?? `The request failed (HTTP ${status}).`;
}

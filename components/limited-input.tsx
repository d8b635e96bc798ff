'use client';
// A text field with a length limit that shows it ("up to 1,000 characters", then "312 / 1,000") and
// never cuts: no maxLength, which would drop a pasted text's end without a word. Over the limit the
// counter says by how much, and the server refuses it naming the field (lib/plain-issues.ts). The
// counter is the field's description, not part of its label: it sits inside the <label> the field is
// in, so its words are drawn by CSS (`.limit::after`), which a label's text leaves out, and it is
// aria-hidden, so the field's name stays the label's words.
import { useEffect, useId, useRef, useState, type InputHTMLAttributes } from 'react';

const n = (v: number) => v.toLocaleString('en-US');

/** What the counter says for `length` characters of at most `limit`. */
export function limitText(length: number, limit: number): string {
  if (length === 0) return `up to ${n(limit)} characters`;
  if (length > limit) return `${n(length)} / ${n(limit)}: ${n(length - limit)} too many`;
  return `${n(length)} / ${n(limit)}`;
}

export function LimitedInput({ limit, ...props }: Omit<InputHTMLAttributes<HTMLInputElement>, 'maxLength'> & { limit: number }) {
  const id = useId();
  const ref = useRef<HTMLInputElement>(null);
  const [typed, setTyped] = useState(() => String(props.defaultValue ?? '').length);
  const length = props.value !== undefined ? String(props.value).length : typed;
  useEffect(() => {
    const input = ref.current;
    if (!input) return;
    setTyped(input.value.length);
    // A reset (after a success) empties the field without an input event.
    const form = input.form;
    const onReset = () => setTimeout(() => setTyped(input.value.length));
    form?.addEventListener('reset', onReset);
    return () => form?.removeEventListener('reset', onReset);
  }, []);
  const { onInput } = props;
  return (
    <>
      <input
        {...props}
        ref={ref}
        aria-describedby={[props['aria-describedby'], id].filter(Boolean).join(' ')}
        onInput={(e) => {
          setTyped(e.currentTarget.value.length);
          onInput?.(e);
        }}
      />
      <span id={id} aria-hidden="true" className={length > limit ? 'limit error' : 'limit'} data-limit={limitText(length, limit)} />
    </>
  );
}

/** The required reason of a form that holds it in its state (the redrives of edited and transformed copies). */
export function ReasonField({ value, onChange, placeholder }: { value: string; onChange: (reason: string) => void; placeholder: string }) {
  return (
    <label>
      Reason
      <LimitedInput name="reason" required limit={1000} value={value} onChange={(e) => onChange(e.target.value)} placeholder={placeholder} />
    </label>
  );
}

'use client';
// A client form's call of the JSON API (components/api-client.ts): pending while it runs, and a
// failure said as the form labels its fields (apiFailureText).
import { useState } from 'react';
import { apiFailureText } from '@/components/api-client';

export interface ApiCallState {
  pending: boolean;
  error: string | null;
  /** Says a problem the form found itself. */
  setError: (error: string | null) => void;
  /** Runs `call` (which calls the API), the error cleared before and set from its failure. */
  run: (form: HTMLFormElement | null, call: () => Promise<void>) => Promise<void>;
}

export function useApiCall(): ApiCallState {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run(form: HTMLFormElement | null, call: () => Promise<void>): Promise<void> {
    setPending(true);
    setError(null);
    try {
      await call();
    } catch (e) {
      setError(apiFailureText(e, form));
    } finally {
      setPending(false);
    }
  }
  return { pending, error, setError, run };
}

'use client';
import type { ReactNode } from 'react';
import { ActionForm } from '@/components/action-form';
import type { ActionState } from '@/lib/auth/action-form';
import type { WebhookData } from './actions';

export function WebhookForm({
  className,
  ...props
}: {
  action: (s: ActionState<WebhookData>, f: FormData) => Promise<ActionState<WebhookData>>;
  children?: ReactNode;
  submit: string;
  testId?: string;
  className?: string;
}) {
  return (
    <ActionForm {...props} buttonClassName={className} extra={(state) => (state.secret ? <code data-testid="webhook-secret">{state.secret}</code> : null)} />
  );
}

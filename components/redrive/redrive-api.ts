// The redrive JSON API as the pages' client components call it (same origin, session cookie).
import { apiErrorText, type ApiErrorBody } from '@/components/field-label';
import type { RedrivePreview, RedriveSelectionInput, RedriveTaskDetail, RatePoint, StartRedriveInput } from '@/lib/redrive';

export interface HistoryEvent {
  id: string;
  at: string;
  actorEmail: string;
  actorRole: string;
  action: string;
  count: number | null;
  reason: string | null;
  result: string | null;
}

export type TaskWithHistory = RedriveTaskDetail & { history: HistoryEvent[] };

export class RedriveApiError extends Error {
  constructor(
    readonly body: ApiErrorBody | null,
    readonly status: number,
  ) {
    super(apiErrorText(body, status));
  }

  get details(): Record<string, unknown> | undefined {
    return this.body?.error?.details;
  }

  /** The message with each field named as `form` labels it. */
  textFor(form: HTMLFormElement | null): string {
    return apiErrorText(this.body, this.status, form);
  }
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, { ...init, headers: { accept: 'application/json', ...(init?.body ? { 'content-type': 'application/json' } : {}) } });
  const body = (await res.json().catch(() => null)) as ApiErrorBody | null;
  if (!res.ok) throw new RedriveApiError(body, res.status);
  return body as T;
}

export const redriveApi = {
  preview: (selection: RedriveSelectionInput) => call<RedrivePreview>(`/api/v1/redrives/preview?${new URLSearchParams({ selection: JSON.stringify(selection) })}`),
  start: (input: StartRedriveInput) => call<RedriveTaskDetail>('/api/v1/redrives', { method: 'POST', body: JSON.stringify(input) }),
  task: (id: string) => call<TaskWithHistory>(`/api/v1/redrives/${id}`),
  series: (id: string) => call<{ points: RatePoint[] }>(`/api/v1/redrives/${id}/series`),
  command: (id: string, verb: 'pause' | 'resume' | 'cancel' | 'approve', reason?: string) =>
    call<RedriveTaskDetail>(`/api/v1/redrives/${id}/${verb}`, { method: 'POST', body: JSON.stringify(reason ? { reason } : {}) }),
};

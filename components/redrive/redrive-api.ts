// The redrive JSON API as the pages' client components call it (same origin, session cookie).
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
    message: string,
    readonly status: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, { ...init, headers: { accept: 'application/json', ...(init?.body ? { 'content-type': 'application/json' } : {}) } });
  const body = (await res.json().catch(() => null)) as { error?: { message: string; details?: Record<string, unknown> } } | null;
  if (!res.ok) {
    const issues = body?.error?.details?.issues as { path: string; message: string }[] | undefined;
    const message = (body?.error?.message ?? `HTTP ${res.status}`) + (issues?.length ? `: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}` : '');
    throw new RedriveApiError(message, res.status, body?.error?.details);
  }
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

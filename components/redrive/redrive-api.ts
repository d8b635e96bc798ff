// The redrive JSON API as the pages' client components call it (components/api-client.ts: a refusal is an ApiError).
import { apiCall } from '@/components/api-client';
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

export const redriveApi = {
  preview: (selection: RedriveSelectionInput) =>
    apiCall<RedrivePreview>(`/api/v1/redrives/preview?${new URLSearchParams({ selection: JSON.stringify(selection) })}`),
  start: (input: StartRedriveInput) => apiCall<RedriveTaskDetail>('/api/v1/redrives', { method: 'POST', body: input }),
  task: (id: string) => apiCall<TaskWithHistory>(`/api/v1/redrives/${id}`),
  series: (id: string) => apiCall<{ points: RatePoint[] }>(`/api/v1/redrives/${id}/series`),
  command: (id: string, verb: 'pause' | 'resume' | 'cancel' | 'approve', reason?: string) =>
    apiCall<RedriveTaskDetail>(`/api/v1/redrives/${id}/${verb}`, { method: 'POST', body: reason ? { reason } : {} }),
};

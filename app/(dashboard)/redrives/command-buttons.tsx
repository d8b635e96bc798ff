'use client';
// Pause, resume, cancel, approve: through the JSON API (the same checks as everywhere), then the
// task's query and the page refresh.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { redriveKeys } from '@/lib/query-keys';
import { redriveApi } from '@/components/redrive/redrive-api';
import { LimitedInput } from '@/components/limited-input';

type Verb = 'pause' | 'resume' | 'cancel' | 'approve';
const LABEL: Record<Verb, string> = { pause: 'Pause', resume: 'Resume', cancel: 'Cancel', approve: 'Approve' };

export function CommandButtons({ taskId, verbs, withReason = false }: { taskId: string; verbs: Verb[]; withReason?: boolean }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const command = useMutation({
    mutationFn: (verb: Verb) => redriveApi.command(taskId, verb, reason.trim() || undefined),
    onSuccess: async () => {
      setReason('');
      await queryClient.invalidateQueries({ queryKey: redriveKeys.detail(taskId) });
      router.refresh();
    },
  });
  if (verbs.length === 0) return null;
  return (
    <div className="inline" style={{ display: 'flex', gap: 8, alignItems: 'end', flexWrap: 'wrap' }} data-testid="redrive-commands">
      {withReason ? (
        <label>
          Reason (optional)
          <LimitedInput value={reason} onChange={(e) => setReason(e.target.value)} limit={1000} name="reason" />
        </label>
      ) : null}
      {verbs.map((v) => (
        <button
          key={v}
          type="button"
          className={v === 'cancel' ? 'danger' : v === 'pause' ? 'secondary' : undefined}
          disabled={command.isPending}
          onClick={() => command.mutate(v)}
        >
          {LABEL[v]}
        </button>
      ))}
      {command.error ? (
        <span className="error" role="alert">
          {command.error.message}
        </span>
      ) : null}
    </div>
  );
}

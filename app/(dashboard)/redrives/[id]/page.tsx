// /redrives/[id] — one redrive task: live progress, rate chart, outcome, and its audit history
import { notFound } from 'next/navigation';
import { can } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { clusterRedriveOutcome, getRedriveTask, redriveHistory } from '@/lib/redrive';
import { TaskLive } from './task-live';

export default async function RedriveTaskPage({ params }: { params: Promise<{ id: string }> }) {
  const actor = await pageActor('deadletters.read');
  const { id } = await params;
  try {
    const [task, history] = await Promise.all([getRedriveTask(actor, id), redriveHistory(actor, id)]);
    const selection = task.selection as { cluster?: unknown };
    const cluster = typeof selection.cluster === 'string' ? { id: selection.cluster, ...(await clusterRedriveOutcome(actor, selection.cluster)) } : null;
    return (
      <TaskLive
        initial={{ ...task, history }}
        cluster={cluster}
        canControl={can(actor.role, 'deadletters.redrive')}
        canApprove={can(actor.role, 'redrive.approve') && task.createdBy !== actor.email}
        auditHref={can(actor.role, 'audit.read') ? `/audit?${new URLSearchParams({ targetType: 'redrive_task', targetId: id })}` : null}
      />
    );
  } catch (e) {
    if (e instanceof AppError && e.code === 'not_found') notFound();
    throw e;
  }
}

// A redrive task's history as the auditor reads it: the task (what, how fast, how far it got) and
// its events in order (who started, approved, paused, resumed, cancelled; how it finished).
import { db } from '@/lib/db';
import { sourceScope, type Principal } from '@/lib/auth';
import { listAuditEvents } from '@/lib/audit-trail/list-events';

export const REDRIVE_TASK_TARGET = 'redrive_task';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function getRedriveHistory(actor: Principal, taskId: string) {
  const events = (await listAuditEvents(actor, { filter: { targetType: REDRIVE_TASK_TARGET, targetId: taskId }, limit: 1000 })).reverse();
  const task = UUID.test(taskId)
    ? await db().redriveTask.findFirst({
        where: { id: taskId, source: sourceScope(actor, 'audit.read') },
        include: { source: { select: { name: true } } },
      })
    : null;
  const people = [task?.createdById, task?.approvedById].filter((id): id is string => Boolean(id));
  const users = people.length ? await db().user.findMany({ where: { id: { in: people } }, select: { id: true, email: true } }) : [];
  const email = (id: string | null | undefined) => users.find((u) => u.id === id)?.email ?? null;
  return { task, createdBy: email(task?.createdById), approvedBy: email(task?.approvedById), events };
}

// Tell the redrive workers a task has work now. Only a nudge: the workers also find runnable tasks
// in Postgres on start and every few seconds, so a lost job (Redis restart) loses nothing.
import { enqueue } from '@/lib/queue/enqueue';
import { log } from '@/lib/log';

export async function nudgeRedrive(taskId: string): Promise<void> {
  try {
    // The job id dedupes nudges while one waits; completed jobs are removed, so a later nudge gets through.
    await enqueue('redriveTask', { taskId }, { jobId: `task-${taskId}` });
  } catch (err) {
    log.warn({ err, taskId }, 'could not enqueue the redrive job; the workers will find the task in Postgres');
  }
}

// One runner per task across processes: a Postgres advisory lock keyed by the task. The runner's
// supervisor holds it as a session lock (freed the moment a killed worker's connection drops);
// a transaction can test it with the transaction-level form.
export const TASK_LOCK_CLASS = 72_010_006;

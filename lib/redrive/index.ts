// Redrive: send dead letters back to their source after the fix, rate-limited, resumable, guarded
// against loops and relapses (docs/design.md "Redrive"; seed 004 §8–9).
export { startRedrive, previewRedrive, startRedriveInput, DEFAULT_RATE, MAX_RATE, type StartRedriveInput, RedrivePreview } from './start-redrive';
export { pauseRedrive, resumeRedrive, cancelRedrive, approveRedrive, redriveCommandInput, type RedriveCommandInput } from './control-redrive';
export {
  getRedriveTask,
  listRedriveTasks,
  listPendingApprovals,
  redriveSeries,
  redriveHistory,
  clusterRedriveOutcome,
  ACTIVE_STATUSES,
  REDRIVE_VERDICTS,
  RedriveTaskView,
  RedriveTaskDetail,
  RedriveTaskPageView,
  RedriveTaskWithHistoryView,
  RedriveSeriesView,
  type RedriveCounts,
  type RedriveVerdict,
  type RatePoint,
  type ClusterRedriveOutcome,
} from './get-redrive';
export { redriveSelection, MAX_FILTER_SELECTION, type RedriveSelection, type RedriveSelectionInput } from './selection';
export { recordRedriveOutcome, type RedriveOutcome } from '@/lib/intake/redrive-outcomes';
export { signRedrive, verifyRedriveSignature, REDRIVE_HEADERS } from './signature';

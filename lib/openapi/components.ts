// Named component schemas of the document: a route spec's view (or body schema) that is one of these
// is written as a $ref to it, so clients see one name for one shape. The rest is inlined per route.
import type { z } from 'zod';
import { UserListView, UserView } from '@/lib/admin/users';
import { ClusterDetail } from '@/lib/clustering/get-cluster';
import { ClusterPage, ClusterSummary } from '@/lib/clustering/list-clusters';
import { ConnectionTestView } from '@/lib/connectors/test-connection';
import { ImportSwitchView } from '@/lib/connectors/pause-import';
import { sqsConfigSchema } from '@/lib/connectors/sqs/config';
import { selectionSchema } from '@/lib/deadletters/decide';
import { DeadLetterDetail } from '@/lib/deadletters/get-dead-letter';
import { DeadLetterGoneView, DeadLetterTombstoneView } from '@/lib/deadletters/get-tombstone';
import { DeadLetterPageWithCount, DeadLetterSummary } from '@/lib/deadletters/list-dead-letters';
import { RecordedDeadLetter } from '@/lib/intake/record-dead-letters';
import { HealthView } from '@/lib/health';
import { ingestBatchSchema, ingestDeadLetterSchema } from '@/lib/ingest/ingest-item';
import { DeliveryView, WebhookView } from '@/lib/notifications/webhooks';
import { Ownership } from '@/lib/ownership/ownership';
import { RedriveTaskDetail, RedriveTaskPageView, RedriveTaskWithHistoryView, RedrivePreview, startRedriveInput } from '@/lib/redrive';
import { RedriveRuleView } from '@/lib/redrive-rules/rules';
import { SourceAlarmsView } from '@/lib/alarms/list-alarms';
import { SourceAnswer } from '@/lib/sources/get-source';
import { SourceListView } from '@/lib/sources/list-sources';
import { SourceView } from '@/lib/sources/source-view';
import { connectionPatch } from '@/lib/sources/update-connection';
import { PolicyAnswer, PolicyReadView, policyInput } from '@/lib/sources/update-policy';
import { OneSavedView, SavedViewListView, SavedViewView } from '@/lib/saved-views/saved-views';

/** Response views: JSON Schema of what the route writes ('output'). */
export const VIEW_COMPONENTS: Record<string, z.ZodType> = {
  User: UserView,
  UserList: UserListView,
  ClusterSummary,
  ClusterPage,
  Cluster: ClusterDetail,
  SourceDetail: SourceAnswer,
  ConnectionTest: ConnectionTestView,
  ImportSwitch: ImportSwitchView,
  DeadLetterSummary,
  DeadLetterPage: DeadLetterPageWithCount,
  DeadLetter: DeadLetterDetail,
  DeadLetterTombstone: DeadLetterTombstoneView,
  DeadLetterGone: DeadLetterGoneView,
  RecordedDeadLetter,
  Webhook: WebhookView,
  WebhookDelivery: DeliveryView,
  Health: HealthView,
  ClusterOwnership: Ownership,
  RedriveTask: RedriveTaskDetail,
  RedriveTaskPage: RedriveTaskPageView,
  RedriveTaskWithHistory: RedriveTaskWithHistoryView,
  RedrivePreview,
  Source: SourceView,
  SourceList: SourceListView,
  SourcePolicy: PolicyAnswer,
  SourcePolicyRead: PolicyReadView,
  SourceAlarms: SourceAlarmsView,
  RedriveRule: RedriveRuleView,
  SavedView: SavedViewView,
  SavedViewList: SavedViewListView,
  OneSavedView,
};

/** Request bodies: JSON Schema of what a client sends ('input'). */
export const INPUT_COMPONENTS: Record<string, z.ZodType> = {
  ConnectionPatch: connectionPatch,
  // An SQS source's `connection`: its `envelope` says what wraps the failed events (AWS failure records).
  SqsConnection: sqsConfigSchema,
  Selection: selectionSchema,
  IngestDeadLetter: ingestDeadLetterSchema,
  IngestBatch: ingestBatchSchema,
  StartRedrive: startRedriveInput,
  SourcePolicyPatch: policyInput,
};

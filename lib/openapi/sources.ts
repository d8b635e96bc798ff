// OpenAPI: sources — listing and creating them, their alarms and their policy (session cookie or personal API token).
// Response bodies are the views of lib/sources, lib/alarms, lib/clustering and lib/redrive-rules (docs/style.md "Views").
import { CreatedSourceView, sourceInput } from '@/lib/sources/create-source';
import { SourceListView } from '@/lib/sources/list-sources';
import { SourceView } from '@/lib/sources/source-view';
import { PolicyAnswer, PolicyReadView, policyInput } from '@/lib/sources/update-policy';
import { SourceAlarmsView } from '@/lib/alarms/list-alarms';
import { LatestRegroupView, RegroupRunView, startRegroupInput } from '@/lib/clustering/regroup';
import { GroupingRulesView, setGroupingRulesInput } from '@/lib/clustering/set-grouping-rules';
import { RedriveRuleListView, RedriveRuleView, createRuleInput, updateRuleInput } from '@/lib/redrive-rules/rules';
import { errors, idParam, jsonContent, ref, schemaOf, viewOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];
const source = idParam('source', 'Source name (or id)');
const ruleParam = idParam('rule', 'Redrive rule id');
const RULE_DESCRIPTION =
  'A rule only starts an ordinary redrive task (rate, canary, circuit breaker, outcome window and four eyes apply) for its author, with the rule named on the task; it waits while the source has an active task, starts once per trigger, and disables itself when its task trips the breaker.';

export const sourcesArea: OpenApiArea = {
  tag: {
    name: 'sources',
    description: "Where dead letters come from, with their policy and alarms. Team-scoped roles see their team's sources only: another team's source answers 404.",
  },
  schemas: {
    Source: viewOf(SourceView),
    SourceList: viewOf(SourceListView),
    SourcePolicy: viewOf(PolicyAnswer),
    SourcePolicyRead: viewOf(PolicyReadView),
    SourcePolicyPatch: schemaOf(policyInput),
    SourceAlarms: viewOf(SourceAlarmsView),
    RedriveRule: viewOf(RedriveRuleView),
  },
  paths: {
    '/api/v1/sources': {
      get: {
        tags: ['sources'],
        summary: 'List the sources the caller may read, by name',
        description: 'No secret is ever included: not the redrive secret, not a connector\'s credentials (only whether they are set).',
        security,
        responses: {
          '200': { description: 'The sources', content: jsonContent(ref('SourceList')) },
          ...errors(401, 403),
        },
      },
      post: {
        tags: ['sources'],
        summary: 'Create a source (admin)',
        description:
          'Names are lowercase and become queue names and URL segments. A connector kind (rabbitmq, bullmq, sqs, nats, sidekiq, azure_queue) takes `connection` (its settings, checked by the connector: e.g. { "queue": "orders.dlq", "managementUrl": "http://host:15672", "errorText": { "messageHeader": "x-error" } }, or for sidekiq { "namespace": "shop" }) and `secret` (e.g. { "url": "amqp://user:pass@host:5672/vhost" }, or for sidekiq { "url": "redis://:pass@host:6379/0" }), encrypted at rest and never returned. An sqs source\'s `connection` is an SqsConnection: its `envelope` (auto, none, lambda-destination, lambda-dlq, eventbridge, sns) says what wraps the failed events. An azure_queue source takes e.g. `connection` { "queue": "orders-poison", "encoding": "base64", "errorText": { "messagePath": "$.error" } } (a `-poison` queue redrives to its own queue unless `targetQueue` is set) and `secret` { "connectionString": "DefaultEndpointsProtocol=https;AccountName=…;AccountKey=…" } or { "accountName", "accountKey" } with `connection.endpoint`. Audited as source.create, the credentials redacted.',
        security,
        requestBody: { required: true, content: jsonContent(schemaOf(sourceInput)) },
        responses: { '201': { description: 'Created', content: jsonContent(viewOf(CreatedSourceView)) }, ...errors(400, 401, 403, 409, 413, 415, 422) },
      },
    },
    '/api/v1/sources/{source}/alarms': {
      get: {
        tags: ['sources'],
        summary: "The source's alarm states (depth, age, rate) and recent transitions",
        security,
        parameters: [source],
        responses: { '200': { description: 'The alarms', content: jsonContent(ref('SourceAlarms')) }, ...errors(401, 403, 404) },
      },
    },
    '/api/v1/sources/{source}/policy': {
      get: {
        tags: ['sources'],
        summary: "The source's policy (retention, age deadline, retry budget, redrive limits, rate alarm thresholds), with warnings",
        security,
        parameters: [source],
        responses: { '200': { description: 'The policy', content: jsonContent(ref('SourcePolicyRead')) }, ...errors(401, 403, 404) },
      },
      patch: {
        tags: ['sources'],
        summary: 'Change the policy (lead of the owning team, admin)',
        description:
          'Only the fields sent change. Refused (422) when the age deadline reaches the retention, when max receives × visibility timeout reaches it, or when the rate alarm threshold is not above its pending threshold. A new retention re-dates the expiry of open dead letters. Audited as source.policy.update with before and after.',
        security,
        parameters: [source],
        requestBody: { required: true, content: jsonContent(ref('SourcePolicyPatch')) },
        responses: { '200': { description: 'Saved, with warnings', content: jsonContent(ref('SourcePolicy')) }, ...errors(400, 401, 403, 404, 413, 415, 422) },
      },
    },
    '/api/v1/sources/{source}/grouping-rules': {
      get: {
        tags: ['sources'],
        summary: "The source's grouping rules and their version",
        security,
        parameters: [source],
        responses: { '200': { description: 'The rules', content: jsonContent(viewOf(GroupingRulesView)) }, ...errors(401, 403, 404) },
      },
      put: {
        tags: ['sources'],
        summary: 'Replace the grouping rules (lead of the owning team, admin)',
        description:
          'Added to the default grouping (error type, template, top frame) of new dead letters: the values of payload JSON paths and headers become part of the fingerprint, and token positions of the template are treated as variable. Open dead letters keep their clusters until the rules are re-applied. Audited as source.grouping with before and after.',
        security,
        parameters: [source],
        requestBody: { required: true, content: jsonContent(schemaOf(setGroupingRulesInput)) },
        responses: { '200': { description: 'Saved', content: jsonContent(viewOf(GroupingRulesView)) }, ...errors(400, 401, 403, 404, 413, 415, 422) },
      },
    },
    '/api/v1/sources/{source}/grouping-rules/reapply': {
      get: {
        tags: ['sources'],
        summary: 'The latest re-application of the rules, with its progress',
        security,
        parameters: [source],
        responses: { '200': { description: 'The run, or null', content: jsonContent(viewOf(LatestRegroupView)) }, ...errors(401, 403, 404) },
      },
      post: {
        tags: ['sources'],
        summary: 'Re-apply the rules to the open dead letters (lead of the owning team, admin)',
        description:
          'Runs in the maintenance worker, in batches of 500, each its own transaction; progress (done of total, moved) is kept. A change of rules supersedes a running re-application. Audited as source.regroup.',
        security,
        parameters: [source],
        requestBody: { required: true, content: jsonContent(schemaOf(startRegroupInput)) },
        responses: { '202': { description: 'Started', content: jsonContent(viewOf(RegroupRunView)) }, ...errors(400, 401, 403, 404, 415, 422) },
      },
    },
    '/api/v1/sources/{source}/redrive-rules': {
      get: {
        tags: ['sources'],
        summary: "The source's redrive rules, with their state, last run and the task they started",
        security,
        parameters: [source],
        responses: {
          '200': { description: 'The rules', content: jsonContent(viewOf(RedriveRuleListView)) },
          ...errors(401, 403, 404),
        },
      },
      post: {
        tags: ['sources'],
        summary: 'Create a redrive rule (lead of the owning team, admin)',
        description: `${RULE_DESCRIPTION} Audited as redrive_rule.create.`,
        security,
        parameters: [source],
        requestBody: { required: true, content: jsonContent(schemaOf(createRuleInput)) },
        responses: { '201': { description: 'Created', content: jsonContent(ref('RedriveRule')) }, ...errors(400, 401, 403, 404, 409, 413, 415, 422) },
      },
    },
    '/api/v1/sources/{source}/redrive-rules/{rule}': {
      patch: {
        tags: ['sources'],
        summary: 'Change, enable or disable a redrive rule (lead of the owning team, admin)',
        description: 'Only the fields sent change. Enabling clears why it was disabled. Audited as redrive_rule.enable, redrive_rule.disable or redrive_rule.update.',
        security,
        parameters: [source, ruleParam],
        requestBody: { required: true, content: jsonContent(schemaOf(updateRuleInput)) },
        responses: { '200': { description: 'Saved', content: jsonContent(ref('RedriveRule')) }, ...errors(400, 401, 403, 404, 409, 413, 415, 422) },
      },
      delete: {
        tags: ['sources'],
        summary: 'Delete a redrive rule (lead of the owning team, admin)',
        description: 'The tasks it started stay; their redrive.start audit events keep its name. Audited as redrive_rule.delete.',
        security,
        parameters: [source, ruleParam],
        responses: { '204': { description: 'Deleted' }, ...errors(401, 403, 404) },
      },
    },
  },
};

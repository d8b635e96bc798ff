// OpenAPI: sources — listing and creating them, their alarms and their policy (session cookie or personal API token).
import { z } from 'zod';
import { sourceInput } from '@/lib/sources/create-source';
import { SOURCE_KINDS } from '@/lib/sources/source-kind';
import { policyInput } from '@/lib/sources/update-policy';
import { groupingRulesSchema } from '@/lib/clustering/grouping-rules';
import { startRegroupInput } from '@/lib/clustering/regroup';
import { setGroupingRulesInput } from '@/lib/clustering/set-grouping-rules';
import { createRuleInput, RULE_KINDS, updateRuleInput } from '@/lib/redrive-rules/rules';
import { errors, idParam, jsonContent, ref, schemaOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];
const ts = z.iso.datetime();
const kind = z.enum(SOURCE_KINDS);
const alarmKind = z.enum(['depth', 'age', 'rate', 'connector', 'quarantine']);
const level = z.enum(['OK', 'PENDING', 'ALARM']);

const sourceView = z.object({
  id: z.uuid(),
  name: z.string(),
  teamId: z.uuid(),
  team: z.string().describe("The owning team's name"),
  kind,
  description: z.string().nullable(),
  maxReceives: z.int(),
  visibilityTimeoutMs: z.int(),
  backoffBaseMs: z.int(),
  backoffCapMs: z.int(),
  maxRedrives: z.int(),
  retentionSeconds: z.int(),
  ageDeadlineSeconds: z.int(),
  alarmRatePending: z.int(),
  alarmRateAlarm: z.int(),
  orderMode: z.enum(['none', 'key']),
  approvalThreshold: z.int(),
  payloadLimitBytes: z.int(),
  redriveUrl: z.string().nullable(),
  redriveSecretSet: z.boolean().describe('The redrive secret is never shown, only whether one is set'),
  sensitivePaths: z.array(z.string()).describe('JSON paths masked for roles without payload.reveal'),
  connection: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("Connector sources: the non-secret settings (queue, target queue, management URL, error-text mapping…); null for other kinds"),
  credentialsSet: z.boolean().nullable().describe('Connector sources: whether credentials are stored. They are never returned, in any form'),
  importPaused: z.boolean().describe('Connector sources: import paused by a user'),
  createdAt: ts,
  updatedAt: ts,
});

const created = z.object({ id: z.uuid(), name: z.string(), kind });

const policy = z.object({
  id: z.uuid(),
  name: z.string(),
  retentionSeconds: z.int(),
  ageDeadlineSeconds: z.int(),
  maxReceives: z.int(),
  visibilityTimeoutMs: z.int(),
  maxRedrives: z.int(),
  approvalThreshold: z.int(),
  editApprovalThreshold: z.int().describe('Edits and transforms of this many dead letters or more wait for a second person'),
  redriveAllowedFrom: z.array(z.string()).describe('Sources (by name) that may redrive into this one'),
  redriveUrl: z.string().nullable(),
  alarmRatePending: z.int().describe('Dead letters in 5 minutes that make the rate alarm PENDING'),
  alarmRateAlarm: z.int().describe('Dead letters in 5 minutes that make the rate alarm ALARM (a wave)'),
  redriveSecretSet: z.boolean().describe('The redrive secret is never shown, only whether one is set'),
});
const warning = z.object({ field: z.string(), message: z.string() });
const policyAnswer = z.object({ source: policy, warnings: z.array(warning) });

const alarmState = z.object({
  sourceId: z.uuid(),
  sourceName: z.string(),
  kind: alarmKind,
  state: level,
  since: ts,
  label: z.string().nullable().describe('e.g. "probable outage" or "bad input"'),
  hint: z.string().nullable().describe("The runbook's first step for the label"),
  detail: z.record(z.string(), z.unknown()).nullable(),
  evaluatedAt: ts.nullable(),
});
const alarmEvent = z.object({
  id: z.string(),
  sourceId: z.uuid(),
  sourceName: z.string(),
  kind: alarmKind,
  from: level,
  to: level,
  at: ts,
  label: z.string().nullable(),
  hint: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()).nullable(),
});
const alarms = z.object({
  source: z.object({ id: z.uuid(), name: z.string() }),
  states: z.array(alarmState).describe('Current states, the raised ones first'),
  events: z.array(alarmEvent).describe('The 20 latest transitions, newest first'),
});

const source = idParam('source', 'Source name (or id)');
const groupingRules = z.object({ source: z.string(), version: z.int().describe('Raised by each change'), rules: groupingRulesSchema.nullable() });
const regroupRun = z.object({
  id: z.uuid(),
  source: z.string(),
  ruleVersion: z.int(),
  status: z.enum(['running', 'done', 'superseded']),
  total: z.int().describe('Open dead letters to look at'),
  done: z.int().describe('Looked at so far'),
  moved: z.int().describe('Moved to another cluster so far'),
  createdAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().nullable(),
});

const redriveRule = z.object({
  id: z.uuid(),
  source: z.string(),
  name: z.string(),
  kind: z.enum(RULE_KINDS).describe('after_wave: once the rate alarm has been OK for okForSeconds after a wave, redrive each of its clusters; on_resolved: redrive a cluster resolved with a fix version'),
  enabled: z.boolean(),
  okForSeconds: z.int().nullable(),
  ratePerSecond: z.int(),
  canary: z.boolean(),
  author: z.string().describe('The lead the rule acts for: the requester of every task it starts'),
  disabledReason: z.string().nullable().describe('Why it is disabled: by whom, or the task that tripped the breaker'),
  disabledAt: ts.nullable(),
  lastRunAt: ts.nullable(),
  lastTaskId: z.uuid().nullable().describe('The last redrive task it started'),
  lastResult: z.string().nullable().describe('What its last evaluation did: started, waiting for an active task, skipped (nothing open)'),
  createdAt: ts,
  updatedAt: ts,
});
const ruleParam = idParam('rule', 'Redrive rule id');
const RULE_DESCRIPTION =
  'A rule only starts an ordinary redrive task (rate, canary, circuit breaker, outcome window and four eyes apply) for its author, with the rule named on the task; it waits while the source has an active task, starts once per trigger, and disables itself when its task trips the breaker.';

export const sourcesArea: OpenApiArea = {
  tag: {
    name: 'sources',
    description: "Where dead letters come from, with their policy and alarms. Team-scoped roles see their team's sources only: another team's source answers 404.",
  },
  schemas: {
    Source: schemaOf(sourceView, 'output'),
    SourcePolicy: schemaOf(policyAnswer, 'output'),
    SourcePolicyPatch: schemaOf(policyInput),
    SourceAlarms: schemaOf(alarms, 'output'),
    RedriveRule: schemaOf(redriveRule, 'output'),
  },
  paths: {
    '/api/v1/sources': {
      get: {
        tags: ['sources'],
        summary: 'List the sources the caller may read, by name',
        description: 'No secret is ever included: not the redrive secret, not a connector\'s credentials (only whether they are set).',
        security,
        responses: {
          '200': { description: 'The sources', content: jsonContent({ type: 'object', required: ['sources'], properties: { sources: { type: 'array', items: ref('Source') } } }) },
          ...errors(401, 403),
        },
      },
      post: {
        tags: ['sources'],
        summary: 'Create a source (admin)',
        description:
          'Names are lowercase and become queue names and URL segments. A connector kind (rabbitmq, bullmq) takes `connection` (its settings, checked by the connector: e.g. { "queue": "orders.dlq", "managementUrl": "http://host:15672", "errorText": { "messageHeader": "x-error" } }) and `secret` (e.g. { "url": "amqp://user:pass@host:5672/vhost" }), encrypted at rest and never returned. Audited as source.create, the credentials redacted.',
        security,
        requestBody: { required: true, content: jsonContent(schemaOf(sourceInput)) },
        responses: { '201': { description: 'Created', content: jsonContent(schemaOf(created, 'output')) }, ...errors(400, 401, 403, 409, 413, 415, 422) },
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
        responses: { '200': { description: 'The policy', content: jsonContent(ref('SourcePolicy')) }, ...errors(401, 403, 404) },
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
        responses: { '200': { description: 'The rules', content: jsonContent(schemaOf(groupingRules, 'output')) }, ...errors(401, 403, 404) },
      },
      put: {
        tags: ['sources'],
        summary: 'Replace the grouping rules (lead of the owning team, admin)',
        description:
          'Added to the default grouping (error type, template, top frame) of new dead letters: the values of payload JSON paths and headers become part of the fingerprint, and token positions of the template are treated as variable. Open dead letters keep their clusters until the rules are re-applied. Audited as source.grouping with before and after.',
        security,
        parameters: [source],
        requestBody: { required: true, content: jsonContent(schemaOf(setGroupingRulesInput)) },
        responses: { '200': { description: 'Saved', content: jsonContent(schemaOf(groupingRules, 'output')) }, ...errors(400, 401, 403, 404, 413, 415, 422) },
      },
    },
    '/api/v1/sources/{source}/grouping-rules/reapply': {
      get: {
        tags: ['sources'],
        summary: 'The latest re-application of the rules, with its progress',
        security,
        parameters: [source],
        responses: { '200': { description: 'The run, or null', content: jsonContent(schemaOf(z.object({ run: regroupRun.nullable() }), 'output')) }, ...errors(401, 403, 404) },
      },
      post: {
        tags: ['sources'],
        summary: 'Re-apply the rules to the open dead letters (lead of the owning team, admin)',
        description:
          'Runs in the maintenance worker, in batches of 500, each its own transaction; progress (done of total, moved) is kept. A change of rules supersedes a running re-application. Audited as source.regroup.',
        security,
        parameters: [source],
        requestBody: { required: true, content: jsonContent(schemaOf(startRegroupInput)) },
        responses: { '202': { description: 'Started', content: jsonContent(schemaOf(regroupRun, 'output')) }, ...errors(400, 401, 403, 404, 415, 422) },
      },
    },
    '/api/v1/sources/{source}/redrive-rules': {
      get: {
        tags: ['sources'],
        summary: "The source's redrive rules, with their state, last run and the task they started",
        security,
        parameters: [source],
        responses: {
          '200': { description: 'The rules', content: jsonContent({ type: 'object', required: ['rules'], properties: { rules: { type: 'array', items: ref('RedriveRule') } } }) },
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

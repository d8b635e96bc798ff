// `npm run --silent triage -- <noun> <verb> [--flags]`: first setup and scripting, audited as the
// system actor. Calls the same lib/ functions as the admin pages. `triage mcp` is the exception: the
// stdio MCP server acts as the person whose assistant token it is given, never as the system.
import './lib/stdio-log';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ZodError } from 'zod';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { bootstrapAdmin, createUser, findUserByEmail, updateUser } from '@/lib/admin/users';
import { createIngestToken, createPersonalToken } from '@/lib/admin/tokens';
import { createSource, redactedSecret } from '@/lib/sources/create-source';
import { setImportPaused } from '@/lib/connectors/pause-import';
import { updateSourcePolicy, type PolicyInput } from '@/lib/sources/update-policy';
import { formatDuration, parseDuration } from '@/lib/duration';
import { readFileSync } from 'node:fs';
import { editDeadLetter, previewTransform, startTransform } from '@/lib/redrive/edit';
import { getRedriveTask, listRedriveTasks, startRedrive, type RedriveSelectionInput, type RedriveTaskView } from '@/lib/redrive';
import { verifyChain, writeCheckpoint } from '@/lib/audit';
import { closeDb } from '@/lib/db';
import { deployDemoHandler, produceDemoBatch } from '@/lib/demo';
import { closeQueues } from '@/lib/queue';
import { AppError } from '@/lib/errors';
import { REDRIVE_TASK_STATUSES } from '@/lib/enums';
import { createRedriveRule, deleteRedriveRule, listRedriveRules, updateRedriveRule, type RedriveRuleView, type RuleKind } from '@/lib/redrive-rules';
import { createView, deleteView, listViews, updateView, type SavedViewView } from '@/lib/saved-views';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { assistantActor, setAssistantRoles } from '@/lib/auth/assistant-access';
import { createAssistantServer } from '@/lib/assistant/server';
import { addClusterNote, getOwnership, updateOwnership, type Ownership, type OwnershipInput } from '@/lib/ownership/ownership';

const USAGE = `usage: triage <command> [--json]
  admin bootstrap --email E [--password-stdin]   (a deployment's first admin, only while none exists: prints a
                generated password once, or reads one from stdin; never on the command line)
  team create --name T
  user create --email E --role support|lead|auditor|admin [--team T] [--password env:NAME]
  user update --email E [--role R] [--team T] [--disabled true|false] [--password env:NAME]
  source create --name N --team T [--kind builtin|ingest]
  source create --name N --team T --kind rabbitmq --url env:NAME --queue DLX_QUEUE   (NAME holds amqp://user:pass@host:5672/vhost)
  source create --name N --team T --kind bullmq --redis-url redis://host:6379 --queue NAME [--prefix bull]
  source create --name N --team T --kind sidekiq --redis-url redis://host:6379/DB [--namespace NS]
  source create --name N --team T --kind nats --url nats://host:4222 --stream S --consumer C
                [--token env:NAME | --user U --password env:NAME] [--delete-after-import]   (credentials may be in the URL instead)
  source create --name N --team T --kind sqs --queue-url URL [--source-queue-url URL] [--endpoint URL] [--region R]
                [--access-key-id K --secret-access-key env:NAME]   (no keys: the AWS SDK's environment)
                [--envelope auto|none|lambda-destination|lambda-dlq|eventbridge|sns]   (what wraps the events; default auto)
  source create --name N --team T --kind azure-queue --connection-string env:NAME --queue NAME [--target-queue NAME] [--encoding text|base64]
                (NAME holds the storage account's connection string; UseDevelopmentStorage=true may be given as it is)
  source pause-import --name N [--reason R] | source resume-import --name N   (a connector source's import)
  source update --name N [--retention 14d] [--deadline 7d] [--max-receives N] [--visibility-timeout 30s]
                [--max-redrives N] [--approval-threshold N]   (durations: 14d, 36h, 90m, 45s or seconds)
                [--rate-pending N] [--rate-alarm N]   (dead letters per 5 minutes for the rate alarm)
                [--redrive-url URL] [--redrive-secret env:NAME]   (where an ingest or SQS source is redriven; "" clears)
                [--edit-approval N]   (edits and transforms of N dead letters or more wait for a second person)
                [--accept-redrives-from A,B]   (sources that may redrive into this one; "" clears)
  token create --source N        (prints an ingest token once)
  token create --user E [--scope assistant]   (a personal API token acting with that user's role; with the
                assistant scope it is the user's MCP assistant's, audited "via assistant")
  assistant allow --roles support,lead   (the roles whose users may have an assistant; "" turns it off; audited)
  mcp --token env:NAME           (an MCP server on stdin/stdout for a local client, acting as the person whose
                assistant token NAME holds; never on the command line)
  redrive start (--source N | --cluster ID [--source N] | --ids ID,ID…) [--rate N] [--canary]
                [--outcome-window 10m] [--canary-window 60s] [--reason R] [--destination N]
                [--confirm-outage]  (a lead's word that the downstream of an arriving outage is healthy; needs --reason)
  redrive edit --id DEAD_LETTER (--payload TEXT | --payload-file F) [--headers-file F.json] --reason R [--destination N]
                                 (redrive an edited copy, stored as a version; the original stays)
  redrive transform (--source N | --cluster ID [--source N] | --ids ID,ID…) --transform JSON --reason R [--preview]
                [--rate N] [--destination N]   (JSON: [{"op":"set|rename|remove","path":"$.a",…} | {"op":"header","name","value"}])
  redrive show --id ID           (status and figures: acknowledged, no death seen, dead again…)
  redrive list [--source N] [--status active|completed|cancelled|paused|running]
  rule list --source N           (the source's redrive rules, their state and last run)
  rule create --source N --name R --kind after_wave|on_resolved --author E [--ok-for 10m] [--rate N] [--no-canary]
                (after_wave: once the rate alarm has been OK for --ok-for after a wave; on_resolved: a cluster
                 resolved with a fix version. Starts ordinary redrive tasks for the lead E, four eyes included)
  rule enable|disable|delete --source N --id RULE
  cluster show --cluster ID      (its ownership and note thread)
  cluster own --cluster ID [--assignee E|""] [--status open|investigating|waiting_for_fix|on_hold|resolved]
              [--ticket URL|""] [--hold-until ISO] [--fix-version V] [--note N]   (on_hold needs --note and --hold-until)
  cluster note --cluster ID --note N
  view list --user E [--page dead_letters|inbox|audit]   (E's saved views and their team's shared ones)
  view save --user E --page dead_letters|inbox|audit --name N [--filters "owner=mine&source=orders"] [--shared]
  view update --user E --id ID [--name N] [--filters Q] [--shared | --private]   (E's own view)
  view delete --user E --id ID
  audit verify                   (recompute the hash chain, hold it to the signed checkpoints; exit 1 if broken)
  audit checkpoint               (verify what is new since the last checkpoint and sign the chain head)
  demo deploy v1|v2              (the demo's orders handler version; v2 accepts unknown fields)
  demo produce [--orders N] [--payments N] [--notifications N] [--outage SECONDS]`;

function describeView(v: SavedViewView): string {
  return `${v.id} ${v.page} "${v.name}" ${v.href}${v.shared ? ' (shared with the team)' : ''}${v.mine ? '' : ` by ${v.owner}`}`;
}

function describeOwnership(o: Ownership): string {
  return `${o.clusterId} ${o.status}${o.assignee ? ` assigned to ${o.assignee.email}` : ' unassigned'}${o.holdUntil ? ` until ${o.holdUntil}` : ''}${o.fixVersion ? ` fixed in ${o.fixVersion}` : ''}${o.ticketUrl ? ` ${o.ticketUrl}` : ''}${o.regressedAt ? ` (regression ${o.regressedAt})` : ''}`;
}

// Options are text or on/off flags, off unless given (--preview and --confirm-outage stay undefined then).
const text = { type: 'string' } as const;
const flag = { type: 'boolean', default: false } as const;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: text,
    email: text,
    role: text,
    team: text,
    password: text,
    'password-stdin': flag,
    kind: text,
    source: text,
    user: text,
    disabled: text,
    retention: text,
    destination: text,
    payload: text,
    'payload-file': text,
    'headers-file': text,
    transform: text,
    preview: { type: 'boolean' },
    'edit-approval': text,
    'accept-redrives-from': text,
    deadline: text,
    'max-receives': text,
    'visibility-timeout': text,
    'max-redrives': text,
    'approval-threshold': text,
    'rate-pending': text,
    'rate-alarm': text,
    orders: text,
    payments: text,
    notifications: text,
    outage: text,
    'redrive-url': text,
    'redrive-secret': text,
    url: text,
    'redis-url': text,
    queue: text,
    prefix: text,
    namespace: text,
    stream: text,
    consumer: text,
    token: text,
    'delete-after-import': flag,
    'queue-url': text,
    'source-queue-url': text,
    envelope: text,
    endpoint: text,
    region: text,
    'access-key-id': text,
    'secret-access-key': text,
    'connection-string': text,
    'target-queue': text,
    encoding: text,
    reason: text,
    id: text,
    ids: text,
    cluster: text,
    rate: text,
    canary: flag,
    'outcome-window': text,
    'confirm-outage': { type: 'boolean' },
    'canary-window': text,
    status: text,
    assignee: text,
    ticket: text,
    'hold-until': text,
    'fix-version': text,
    note: text,
    author: text,
    'ok-for': text,
    'no-canary': flag,
    page: text,
    filters: text,
    shared: flag,
    private: flag,
    scope: text,
    roles: text,
    json: flag,
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const actor = { ...SYSTEM, label: 'cli' };

/**
 * A secret flag's value: a command line is visible to every user of the machine (`ps`), so a secret
 * is never taken from it: `--flag env:NAME` reads the environment variable NAME instead. A URL is a
 * secret when it holds a password; `--redrive-secret ""` (clearing it) holds none.
 */
function secretFlag(flag: string, kind: 'secret' | 'url' | 'connection-string' = 'secret'): string | undefined {
  const v = values[flag as keyof typeof values];
  if (typeof v !== 'string') return undefined;
  const ref = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(v);
  if (ref) {
    const fromEnv = process.env[ref[1]!];
    if (fromEnv === undefined) throw new AppError('bad_request', `--${flag} env:${ref[1]}: ${ref[1]} is not set`);
    return fromEnv;
  }
  const secret = kind === 'url' ? urlHasPassword(v) : kind === 'connection-string' ? connectionStringHasSecret(v) : v !== '';
  if (secret) {
    throw new AppError(
      'bad_request',
      `--${flag} would put a secret on the command line, visible in \`ps\` to every user of this machine: set it in an environment variable and pass --${flag} env:NAME`,
    );
  }
  return v;
}

/** An Azure Storage connection string holds a secret when it carries an account key or a SAS signature. */
function connectionStringHasSecret(cs: string): boolean {
  return /(^|;)\s*(AccountKey|SharedAccessSignature)\s*=/i.test(cs);
}

function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}

/** A connector source's secret fields from the flags: the broker URL with its credentials. */
function connectorSecretFlags(kind: string): Record<string, string> | undefined {
  if (kind === 'rabbitmq') return { url: need(secretFlag('url', 'url'), 'url') };
  if (kind === 'bullmq' || kind === 'sidekiq') return { url: need(secretFlag('redis-url', 'url'), 'redis-url') };
  if (kind === 'nats') {
    const secret: Record<string, string> = { url: need(secretFlag('url', 'url'), 'url') };
    const token = secretFlag('token');
    const password = secretFlag('password');
    if (token) secret.token = token;
    if (values.user) secret.user = values.user;
    if (password) secret.pass = password;
    return secret;
  }
  if (kind === 'azure_queue') return { connectionString: need(secretFlag('connection-string', 'connection-string'), 'connection-string') };
  if (kind === 'sqs') {
    const key = secretFlag('secret-access-key');
    if (!!values['access-key-id'] !== !!key) throw new AppError('bad_request', '--access-key-id and --secret-access-key go together');
    return values['access-key-id'] ? { accessKeyId: values['access-key-id'], secretAccessKey: key! } : {};
  }
  return undefined;
}

/** A connector source's settings and secrets from the flags (validated by its connector). */
function connectionFlags(kind: string): { connection?: Record<string, unknown>; secret?: Record<string, string> } {
  const secret = connectorSecretFlags(kind);
  if (!secret) return {};
  if (kind === 'nats') {
    const connection = { stream: need(values.stream, 'stream'), consumer: need(values.consumer, 'consumer'), deleteAfterImport: values['delete-after-import'] };
    return { connection, secret };
  }
  if (kind === 'sqs') {
    const optional = { sourceQueueUrl: values['source-queue-url'], endpoint: values.endpoint, region: values.region, envelope: values.envelope };
    const connection = { queueUrl: need(values['queue-url'], 'queue-url'), ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)) };
    return { connection, secret };
  }
  if (kind === 'sidekiq') return { connection: values.namespace === undefined ? {} : { namespace: values.namespace }, secret };
  const connection: Record<string, unknown> = { queue: need(values.queue, 'queue') };
  if (kind === 'bullmq' && values.prefix !== undefined) connection.prefix = values.prefix;
  if (kind === 'azure_queue') {
    if (values['target-queue'] !== undefined) connection.targetQueue = values['target-queue'];
    if (values.encoding !== undefined) connection.encoding = values.encoding;
  }
  return { connection, secret };
}

function need(v: string | undefined, flag: string): string {
  if (!v) throw new AppError('bad_request', `--${flag} is required`);
  return v;
}

function seconds(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const s = parseDuration(v);
  if (s === undefined) throw new AppError('bad_request', `--${flag} takes a duration like 14d, 36h, 90m, 45s`);
  return s;
}

function redriveSelectionFlags(): RedriveSelectionInput {
  if (values.ids)
    return {
      ids: values.ids
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    };
  if (values.cluster) return { cluster: values.cluster, ...(values.source ? { source: values.source } : {}) };
  if (values.source) return { source: values.source };
  throw new AppError('bad_request', 'redrive start needs --source N, --cluster ID or --ids ID,ID…');
}

/** One line: status (awaiting outcomes while sent items are inside their window) and the figures. */
function describeRedrive(t: RedriveTaskView & { outcomesDueAt?: string | null }): string {
  const c = t.counts;
  const awaiting = t.status === 'running' && c.pending === 0 && c.awaitingOutcome > 0;
  const due = awaiting && t.outcomesDueAt ? ` (final by ${t.outcomesDueAt}, in ${formatDuration((Date.parse(t.outcomesDueAt) - Date.now()) / 1000)})` : '';
  return (
    `redrive ${t.id} of ${t.source.name}${t.destination.id !== t.source.id ? ` → ${t.destination.name}` : ''}: ${t.status.replace('_', ' ')}${awaiting ? ' — awaiting outcomes' : ''}${due}; ` +
    `${c.sent} sent of ${c.total}: ${c.acknowledged} acknowledged, ${c.noDeathSeen} no death seen, ${c.deadAgain} dead again, ` +
    `${c.awaitingOutcome} awaiting outcome; ${c.skipped} skipped, ${c.failed} failed, ${c.pending} not sent yet; ` +
    `outcome window ${formatDuration(t.outcomeWindowSeconds)}${t.canary ? `, canary's ${formatDuration(t.canaryWindowSeconds)}` : ''}` +
    (t.pausedReason ? `\n  paused: ${t.pausedReason}` : '')
  );
}

function describeRule(r: RedriveRuleView): string {
  const when = r.kind === 'after_wave' ? `after a wave, OK for ${formatDuration(r.okForSeconds ?? 0)}` : 'on resolved with a fix version';
  return (
    `rule ${r.id} "${r.name}" of ${r.source}: ${when}, ${r.ratePerSecond}/s${r.canary ? ', canary' : ''}, for ${r.author}; ` +
    `${r.enabled ? 'enabled' : `disabled (${r.disabledReason ?? 'no reason'})`}` +
    (r.lastResult ? `\n  last: ${r.lastResult}${r.lastRunAt ? ` at ${r.lastRunAt}` : ''}` : '')
  );
}

/** A password piped in (`--password-stdin`), without its trailing newline. */
async function passwordFromStdin(): Promise<string> {
  // A terminal would echo it; a pipe or a file is the point of the flag.
  if (process.stdin.isTTY)
    throw new AppError('bad_request', '--password-stdin reads a pipe, e.g. printf %s "$PASSWORD" | … (or leave it out to have one generated)');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

function out(human: string, data: Record<string, unknown>) {
  process.stdout.write(values.json ? `${JSON.stringify(data)}\n` : `${human}\n`);
}

async function main(): Promise<void> {
  const [noun, verb] = positionals;
  if (values.help || !noun) {
    console.log(USAGE);
    return;
  }
  if (noun === 'mcp') return serveMcp();
  switch (`${noun} ${verb}`) {
    case 'assistant allow': {
      if (values.roles === undefined) throw new AppError('bad_request', '--roles is required (e.g. support,lead; "" turns the assistant off)');
      const roles = await setAssistantRoles(actor, {
        roles: values.roles
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean) as never,
      });
      return out(roles.length ? `the assistant is allowed for: ${roles.join(', ')}` : 'the assistant is allowed for no role', { roles });
    }
    case 'admin bootstrap': {
      // Not from argv: every user of the machine can read a command line in `ps`.
      if (values.password !== undefined) {
        throw new AppError(
          'bad_request',
          'admin bootstrap takes no --password (a command line is visible in `ps`): pipe it in with --password-stdin, or leave it out to have one generated',
        );
      }
      const email = need(values.email, 'email');
      const given = values['password-stdin'] ? await passwordFromStdin() : undefined;
      const password = given ?? randomBytes(18).toString('base64url');
      const u = await bootstrapAdmin(actor, { email, password });
      return out(
        given === undefined
          ? `admin ${u.email} created. Sign in with this password, shown only this once:\npassword: ${password}`
          : `admin ${u.email} created; sign in with the password you gave`,
        { id: u.id, email: u.email, role: u.role, ...(given === undefined ? { password } : {}) },
      );
    }
    case 'team create': {
      const t = await createTeam(actor, { name: need(values.name, 'name') });
      return out(`team ${t.name} (${t.id})`, { id: t.id, name: t.name });
    }
    case 'user create': {
      const given = secretFlag('password');
      const password = given ?? randomBytes(12).toString('base64url');
      const u = await createUser(actor, { email: need(values.email, 'email'), role: need(values.role, 'role') as never, team: values.team, password });
      return out(`user ${u.email} (${u.role})${given ? '' : ` password: ${password}`}`, {
        id: u.id,
        email: u.email,
        role: u.role,
        ...(given ? {} : { password }),
      });
    }
    case 'user update': {
      const u0 = await findUserByEmail(need(values.email, 'email'));
      if (!u0) throw new AppError('not_found', `No user ${values.email}`);
      const disabled = values.disabled === undefined ? undefined : values.disabled === 'true';
      const u = await updateUser(actor, u0.id, { role: values.role as never, team: values.team, disabled, password: secretFlag('password') });
      return out(`user ${u.email} (${u.role}${u.disabled ? ', disabled' : ''})`, { id: u.id, email: u.email, role: u.role, disabled: u.disabled });
    }
    case 'source create': {
      // The CLI's word for a kind whose stored name has an underscore (azure-queue is azure_queue).
      const kind = (values.kind ?? 'builtin').replaceAll('-', '_');
      const s = await createSource(actor, { name: need(values.name, 'name'), team: need(values.team, 'team'), kind: kind as never, ...connectionFlags(kind) });
      // Never the secret itself: a connector source's URL is printed redacted.
      const secret = connectorSecretFlags(kind);
      const connection = s.connection as Record<string, unknown>;
      const location =
        kind === 'nats'
          ? `stream ${String(connection.stream)} consumer ${String(connection.consumer)}`
          : kind === 'sidekiq'
            ? `dead set ${connection.namespace ? `${String(connection.namespace)}:` : ''}dead`
            : `queue ${String(connection.queue)}`;
      const where =
        kind === 'sqs'
          ? ` ${String(connection.queueUrl)}`
          : kind === 'azure_queue'
            ? ` ${location}`
            : secret
              ? ` ${redactedSecret(secret).url} ${location}`
              : '';
      return out(`source ${s.name} (${s.id})${where}`, {
        id: s.id,
        name: s.name,
        kind: s.kind,
        ...(secret ? { connection, secret: redactedSecret(secret), importPaused: s.importPaused } : {}),
      });
    }
    case 'source pause-import':
    case 'source resume-import': {
      const r = await setImportPaused(actor, need(values.name, 'name'), verb === 'pause-import', values.reason);
      return out(`source ${r.name}: import ${r.importPaused ? 'paused' : 'running'}${r.changed ? '' : ' (unchanged)'}`, r);
    }
    case 'source update': {
      const int = (v: string | undefined) => (v === undefined ? undefined : Number(v));
      const visibility = seconds(values['visibility-timeout'], 'visibility-timeout');
      const patch: PolicyInput = {
        retentionSeconds: seconds(values.retention, 'retention'),
        ageDeadlineSeconds: seconds(values.deadline, 'deadline'),
        maxReceives: int(values['max-receives']),
        visibilityTimeoutMs: visibility === undefined ? undefined : visibility * 1000,
        maxRedrives: int(values['max-redrives']),
        approvalThreshold: int(values['approval-threshold']),
        alarmRatePending: int(values['rate-pending']),
        alarmRateAlarm: int(values['rate-alarm']),
        redriveUrl: values['redrive-url'] === undefined ? undefined : values['redrive-url'] || null,
        redriveSecret: values['redrive-secret'] === undefined ? undefined : secretFlag('redrive-secret') || null,
        editApprovalThreshold: int(values['edit-approval']),
        redriveAllowedFrom:
          values['accept-redrives-from'] === undefined
            ? undefined
            : values['accept-redrives-from']
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
      };
      const r = await updateSourcePolicy(actor, need(values.name, 'name'), Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)));
      const warnings = r.warnings.map((w) => `\nwarning: ${w.message}`).join('');
      return out(`source ${r.source.name} policy saved${warnings}`, { ...r.source, warnings: r.warnings });
    }
    case 'token create': {
      if (values.source) {
        const t = await createIngestToken(actor, values.source);
        return out(t.token, { token: t.token, id: t.id });
      }
      if (values.user) {
        const scopes = values.scope
          ? (values.scope
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean) as 'assistant'[])
          : [];
        const t = await createPersonalToken(actor, values.user, undefined, { scopes });
        return out(t.token, { token: t.token, id: t.id });
      }
      throw new AppError('bad_request', 'token create needs --source N or --user E');
    }
    case 'redrive start': {
      const t = await startRedrive(actor, {
        selection: redriveSelectionFlags(),
        ratePerSecond: values.rate === undefined ? undefined : Number(values.rate),
        canary: values.canary,
        outcomeWindowSeconds: seconds(values['outcome-window'], 'outcome-window'),
        canaryWindowSeconds: seconds(values['canary-window'], 'canary-window'),
        reason: values.reason,
        destination: values.destination,
        ...(values['confirm-outage'] ? { outageConfirmed: true } : {}),
      });
      await closeQueues(); // the nudge to the redrive workers opened a Redis connection
      const view = await getRedriveTask(actor, t.id);
      return out(describeRedrive(view), { ...view });
    }
    case 'redrive edit': {
      const file = values['payload-file'];
      const r = await editDeadLetter(actor, need(values.id, 'id'), {
        ...(file ? { payloadBase64: readFileSync(file).toString('base64') } : { payload: values.payload }),
        headers: values['headers-file'] ? (JSON.parse(readFileSync(values['headers-file'], 'utf8')) as Record<string, unknown>) : undefined,
        reason: values.reason ?? '',
        destination: values.destination,
      });
      await closeQueues();
      const v = r.versions[0]!;
      const view = await getRedriveTask(actor, r.task.id);
      return out(`version ${v.version} sha256 ${v.sha256} (original ${r.originalSha256})\n${describeRedrive(view)}`, {
        version: { ...v, id: v.id.toString(), deadLetterId: v.deadLetterId.toString() },
        originalSha256: r.originalSha256,
        diff: r.diff,
        task: view,
      });
    }
    case 'redrive transform': {
      let transform: unknown;
      try {
        transform = JSON.parse(need(values.transform, 'transform'));
      } catch {
        throw new AppError('bad_request', '--transform is not valid JSON');
      }
      if (values.preview) {
        const p = await previewTransform(actor, { selection: redriveSelectionFlags(), transform });
        const cannot = p.cannotApply.map((c) => `\n  cannot apply: ${c.id} ${c.messageId}: ${c.why}`).join('');
        return out(`applies to ${p.applies} of ${p.total}; ${p.cannotApplyCount} it cannot apply to${cannot}`, { ...p });
      }
      const r = await startTransform(actor, {
        selection: redriveSelectionFlags(),
        transform: transform as never,
        reason: values.reason ?? '',
        ratePerSecond: values.rate === undefined ? undefined : Number(values.rate),
        destination: values.destination,
      });
      await closeQueues();
      const view = await getRedriveTask(actor, r.task.id);
      return out(`${r.applies} transformed copies, ${r.cannotApplyCount} not applicable (not sent)\n${describeRedrive(view)}`, {
        applies: r.applies,
        cannotApplyCount: r.cannotApplyCount,
        cannotApply: r.cannotApply,
        task: view,
      });
    }
    case 'redrive show': {
      const view = await getRedriveTask(actor, need(values.id, 'id'));
      return out(describeRedrive(view), { ...view });
    }
    case 'redrive list': {
      const statuses = ['active', ...REDRIVE_TASK_STATUSES] as const;
      const status = statuses.find((s) => s === values.status);
      if (values.status !== undefined && !status) throw new AppError('bad_request', `--status takes one of ${statuses.join(', ')}`);
      const page = await listRedriveTasks(actor, { source: values.source, status, limit: 200 });
      return out(page.tasks.map(describeRedrive).join('\n') || 'no redrive tasks', { tasks: page.tasks });
    }
    case 'rule list': {
      const rules = await listRedriveRules(actor, need(values.source, 'source'));
      return out(rules.map(describeRule).join('\n') || 'no redrive rules', { rules });
    }
    case 'rule create': {
      const r = await createRedriveRule(actor, need(values.source, 'source'), {
        name: need(values.name, 'name'),
        kind: need(values.kind, 'kind') as RuleKind,
        author: need(values.author, 'author'),
        ...(values['ok-for'] !== undefined ? { okForSeconds: seconds(values['ok-for'], 'ok-for') } : {}),
        ...(values.rate !== undefined ? { ratePerSecond: Number(values.rate) } : {}),
        canary: !values['no-canary'],
      });
      return out(describeRule(r), { ...r });
    }
    case 'rule enable':
    case 'rule disable': {
      const r = await updateRedriveRule(actor, need(values.source, 'source'), need(values.id, 'id'), { enabled: verb === 'enable' });
      return out(describeRule(r), { ...r });
    }
    case 'rule delete': {
      await deleteRedriveRule(actor, need(values.source, 'source'), need(values.id, 'id'));
      return out(`rule ${values.id} deleted`, { deleted: values.id });
    }
    case 'cluster show': {
      const o = await getOwnership(actor, need(values.cluster, 'cluster'));
      return out(describeOwnership(o) + o.notes.map((n) => `\n  ${n.createdAt} ${n.author}: ${n.body}`).join(''), { ...o });
    }
    case 'cluster own': {
      const o = await updateOwnership(actor, need(values.cluster, 'cluster'), {
        ...(values.assignee !== undefined ? { assignee: values.assignee || null } : {}),
        ...(values.status !== undefined ? { status: values.status as OwnershipInput['status'] } : {}),
        ...(values.ticket !== undefined ? { ticketUrl: values.ticket || null } : {}),
        ...(values['hold-until'] !== undefined ? { holdUntil: values['hold-until'] } : {}),
        ...(values['fix-version'] !== undefined ? { fixVersion: values['fix-version'] } : {}),
        ...(values.note !== undefined ? { note: values.note } : {}),
      });
      await closeQueues(); // an assignment queues its webhook deliveries
      return out(describeOwnership(o), { ...o });
    }
    case 'cluster note': {
      const n = await addClusterNote(actor, need(values.cluster, 'cluster'), { body: need(values.note, 'note') });
      return out(`note ${n.id} added`, { ...n });
    }
    // Saved views belong to a user: the CLI acts as the system for the one named by --user.
    case 'view list': {
      const views = await listViews(actor, { owner: need(values.user, 'user'), page: values.page });
      return out(views.map(describeView).join('\n') || 'no saved views', { views });
    }
    case 'view save': {
      const v = await createView(actor, {
        owner: need(values.user, 'user'),
        page: need(values.page, 'page') as never,
        name: need(values.name, 'name'),
        filters: values.filters,
        shared: values.shared,
      });
      return out(`saved ${describeView(v)}`, { view: v });
    }
    case 'view update': {
      if (values.shared && values.private) throw new AppError('bad_request', '--shared or --private, not both');
      const shared = values.shared ? true : values.private ? false : undefined;
      const v = await updateView(actor, need(values.id, 'id'), { name: values.name, filters: values.filters, shared }, undefined, {
        owner: need(values.user, 'user'),
      });
      return out(`updated ${describeView(v)}`, { view: v });
    }
    case 'view delete': {
      await deleteView(actor, need(values.id, 'id'), undefined, { owner: need(values.user, 'user') });
      return out(`deleted view ${values.id}`, { deleted: values.id });
    }
    case 'audit verify': {
      const r = await verifyChain();
      if (!r.ok) process.exitCode = 1;
      const listed = r.breaks.map(
        (b) => `  #${b.id} ${b.kind}: ${b.problem}${b.acknowledged ? ` (acknowledged by ${b.acknowledged.by}: ${b.acknowledged.reason})` : ''}`,
      );
      const head = r.ok
        ? `ok: ${r.checked} events intact${r.breakCount ? `, ${r.breakCount} acknowledged break(s)` : ''}`
        : `BROKEN: ${r.unacknowledged} break(s) not acknowledged, first at #${r.firstBrokenId}: ${r.problem} (${r.checked} events checked)`;
      return out([head, ...listed].join('\n'), { ...r });
    }
    case 'audit checkpoint': {
      const r = await writeCheckpoint();
      if (!r.verify.ok) process.exitCode = 1;
      const human = r.verify.fromBroken
        ? `BROKEN at #${r.verify.firstBrokenId}: ${r.verify.problem}; no checkpoint written`
        : r.written
          ? `checkpoint #${r.checkpoint!.headId} (${r.checkpoint!.count} events) written`
          : `no new events since checkpoint #${r.checkpoint?.headId ?? '-'}`;
      return out(human, { written: r.written, checkpoint: r.checkpoint ?? null, ok: r.verify.ok, problem: r.verify.problem ?? null });
    }
    case 'demo deploy': {
      if (!positionals[2]) throw new AppError('bad_request', 'demo deploy needs a version: v1 or v2');
      const d = await deployDemoHandler(actor, positionals[2]);
      return out(`demo handler ${d.before} → ${d.after}`, d);
    }
    case 'demo produce': {
      const count = (v: string | undefined) => (v === undefined ? undefined : Number(v));
      const b = await produceDemoBatch({
        orders: count(values.orders),
        payments: count(values.payments),
        notifications: count(values.notifications),
        paymentsOutageSeconds: count(values.outage),
      });
      await closeQueues();
      const sent = { orders: b.orders.messageIds.length, payments: b.payments.messageIds.length, notifications: b.notifications.messageIds.length };
      return out(`sent ${sent.orders} orders, ${sent.payments} payments, ${sent.notifications} notifications`, { ...b, sent });
    }
    default:
      throw new AppError('bad_request', `unknown command "${positionals.join(' ')}"\n${USAGE}`);
  }
}

/** The stdio MCP server: until the client closes stdin, as the person the token belongs to. */
async function serveMcp(): Promise<void> {
  const person = await assistantActor(need(secretFlag('token'), 'token'));
  const server = createAssistantServer(person);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
}

main()
  .catch((e: unknown) => {
    const message = e instanceof AppError ? e.message : e instanceof ZodError ? e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : String(e);
    if (values.json) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    else console.error(`triage: ${message}`);
    process.exitCode = e instanceof AppError || e instanceof ZodError ? 2 : 1;
  })
  .finally(() => closeDb());

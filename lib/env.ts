// The one place that reads process.env (docs/style.md pattern 6: env read in one place, checked
// at boot).
// Defaults make the local demo work with no configuration at all.
import path from 'node:path';
import { z } from 'zod';
import { withDefaultUser } from './db-url.mjs';
import { issueList } from './zod-issues';
import { checkpointKeyFile, fileSecret, productionSecretProblems, secretProblem } from './env-secrets.mjs';

/** A whole number above zero, `fallback` when unset. */
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** A switch: on only when set to 'true'. */
const offUnlessTrue = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true');

const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: z.string().url().default('postgresql://localhost:5432/triage'),
  // A Postgres streaming replica of DATABASE_URL for the pages' and the API's reads (lists, counts,
  // search, exports, clusters, SLA, charts); writes, and the reads that decide them, stay on the
  // primary. Unset (or empty): every read goes to the primary. lib/db/replica.ts, docs/deployment.md.
  DATABASE_REPLICA_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  // Replay lag past which reads go back to the primary (as when the replica does not answer), and
  // how long one lag check is trusted (each process checks at most this often).
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(300_000).default(5_000),
  DATABASE_REPLICA_CHECK_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  REDIS_URL: z.string().url().default('redis://localhost:6379'),
  // The app's public origin: links in notifications and the Origin check on cookie mutations.
  // Unset: http://localhost on PORT (3000), the port `npm start` and the demo serve on.
  APP_URL: z.string().url().optional(),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  AUTH_SECRET: z.string().min(32).optional(),
  OIDC_ISSUER: z.string().url().optional(),
  OIDC_CLIENT_ID: z.string().optional(),
  OIDC_CLIENT_SECRET: z.string().optional(),
  OIDC_NAME: z.string().default('Single sign-on'),
  // Redis Cluster instead of one Redis: comma-separated seed nodes (host:port); REDIS_URL is then
  // unused. Every BullMQ key (and the sign-in limiter's) must then share a slot: QUEUE_PREFIX needs a
  // {hash tag}, and defaults to {triage}.
  REDIS_CLUSTER_NODES: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'host:port, comma-separated'))),
  // Prefix of every BullMQ key (default triage, or {triage} on a cluster).
  QUEUE_PREFIX: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Where log lines go: stderr for the stdio MCP server (`triage mcp`), whose stdout is the protocol.
  LOG_TO: z.enum(['stdout', 'stderr']).default('stdout'),
  // Where local state lives: the generated development secret, audit checkpoints.
  TRIAGE_STATE_DIR: z.string().default('.triage'),
  // Required in production (lib/env-secrets.mjs): `openssl rand -base64 32`.
  AUDIT_CHECKPOINT_KEY: z.string().min(16).optional(),
  // Outside production only: where the generated checkpoint key is kept (default ~/.config/triage/),
  // never beside the checkpoint file.
  AUDIT_CHECKPOINT_KEY_FILE: z.string().min(1).optional(),
  // Signed audit checkpoints (NDJSON); default TRIAGE_STATE_DIR/audit-checkpoints.ndjson. Point it at
  // storage the database's administrators cannot rewrite, or a cut tail goes unnoticed.
  AUDIT_CHECKPOINT_FILE: z.string().min(1).optional(),
  // The demo's "deploy handler v2" switch; the admin toggle in settings overrides it.
  DEMO_HANDLER_VERSION: z.enum(['v1', 'v2']).default('v1'),
  // The consumer worker: messages handled at once per source, and how often it looks for new sources.
  CONSUMER_CONCURRENCY: positiveInt(10),
  CONSUMER_DISCOVERY_MS: positiveInt(5_000),
  // Worker processes' Postgres sessions (lib/db/pools.ts, setWorkerTimeouts): a statement that waits longer
  // (on a lock, on a server that stopped answering) fails with an error instead of hanging its handler;
  // the maintenance worker and the search indexer run bulk statements under the longer bulk timeout.
  // A session left idle inside a transaction this long is ended by Postgres, its locks released.
  // The web app's requests are not under these (an export streams for as long as it takes).
  WORKER_STATEMENT_TIMEOUT_MS: positiveInt(30_000),
  BULK_STATEMENT_TIMEOUT_MS: positiveInt(600_000),
  WORKER_IDLE_IN_TRANSACTION_TIMEOUT_MS: positiveInt(60_000),
  // A Postgres write with no answer this long is given up (lib/db/stall-guard.ts: the dead-letter
  // sweeper, the connectors' imports), its work left to be done again. Twice the idle-in-transaction
  // timeout: a live write is cut by the server's own timeouts long before. Tests shorten it.
  POSTGRES_STALL_MS: positiveInt(120_000),
  // How often each worker process writes its heartbeat; health calls a kind stale after 3 missed beats (and at least 15 s).
  WORKER_HEARTBEAT_MS: positiveInt(5_000),
  // Only behind a reverse proxy that sets X-Forwarded-For may that header name the client: anyone
  // can send it, and the sign-in limiter keys on it.
  TRUST_PROXY: offUnlessTrue,
  SIGN_IN_MAX_ATTEMPTS: positiveInt(10),
  SIGN_IN_WINDOW_SECONDS: positiveInt(300),
  // Webhooks and redrive URLs may not reach internal addresses (lib/outbound) except these hosts
  // (comma-separated names or addresses), or any at all with OUTBOUND_ALLOW_PRIVATE=true.
  OUTBOUND_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) =>
          h
            .trim()
            .replace(/^\[(.*)\]$/, '$1')
            .toLowerCase(),
        )
        .filter(Boolean),
    ),
  OUTBOUND_ALLOW_PRIVATE: offUnlessTrue,
  // Encrypts connector credentials at rest (lib/connectors/secrets.ts); generated under TRIAGE_STATE_DIR
  // when unset. Losing it means re-entering every connector's credentials.
  CONNECTOR_SECRET_KEY: z.string().min(32).optional(),
  // The connectors worker: how often it rereads the connector sources (new, changed, paused, removed).
  CONNECTOR_DISCOVERY_MS: positiveInt(5_000),
  // A connector source whose import keeps failing this long raises its connector alarm (lib/alarms).
  CONNECTOR_ALARM_AFTER_SECONDS: positiveInt(120),
  // A redrive task paused this long (it holds its dead letters) turns its source's redrive alarm to ALARM.
  REDRIVE_PAUSED_ALARM_SECONDS: positiveInt(1800),
  // A connector source's source queue (the queue its consumer reads) whose oldest waiting message is
  // older than this raises its consumer alarm, as does one with messages and no consumer (lib/alarms).
  SOURCE_QUEUE_MAX_AGE_SECONDS: positiveInt(900),
  // How long the maintenance cycle waits for one broker's answer about a source queue; past it the
  // source's reading is kept and marked stale (lib/connectors/source-queue.ts).
  SOURCE_QUEUE_READ_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  // How long an advisory handed to a NATS source's reader may stay unacknowledged before NATS hands it
  // out again (a connectors process killed mid-batch); set when the reader is created. The fault
  // tests shorten it so that a redelivery comes within the test.
  NATS_READER_ACK_WAIT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  // The rate alarm counts dead letters over this window (lib/alarms); the browser tests shorten it so
  // a wave ends, and its redrive rule fires, within the test.
  ALARM_RATE_WINDOW_SECONDS: z.coerce.number().int().min(5).max(3600).default(300),
  // The demo's RabbitMQ (workers/demo-rabbitmq.ts); the demo runs without it when unreachable.
  // The search indexer: batches indexed at once (each its own Postgres backend, SKIP LOCKED splits
  // the backlog). Trigram indexing is CPU-bound in Postgres: 2 keeps both cores of a small host busy.
  SEARCH_INDEXER_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  // Write admission (lib/admission): statements of write work (ingest, connector imports, the runtime's
  // sweeper, the search indexer) running at once, across every process sharing this Redis. 0 (the
  // default): no budget. Off until a full-size storm run shows which size keeps the pages fast without
  // starving ingest (a budget of one, cores minus one here, took ingest to 0.07x raw COPY in a small run).
  WRITE_BUDGET: z.coerce.number().int().min(0).max(256).default(0),
  // A lease whose holder died is given back after this long (live holders renew it a third of the way).
  WRITE_BUDGET_LEASE_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  // How long an ingest request waits for the budget before answering 503 + Retry-After.
  WRITE_BUDGET_INGEST_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(1_000),
  DEMO_RABBITMQ_URL: z
    .string()
    .regex(/^amqps?:\/\//, 'an amqp:// URL')
    .default('amqp://guest:guest@localhost:5672/'),
  // The demo's Sidekiq (workers/demo-sidekiq.ts): a Redis database of its own, as Sidekiq's keys are unprefixed.
  DEMO_SIDEKIQ_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'a redis:// URL')
    .default('redis://localhost:6379/1'),
});

export type Env = Omit<z.infer<typeof schema>, 'QUEUE_PREFIX' | 'APP_URL'> & {
  APP_URL: string;
  AUTH_SECRET: string;
  AUDIT_CHECKPOINT_KEY: string;
  QUEUE_PREFIX: string;
};

function load(): Env {
  // Before the schema, so a short or placeholder secret gets the message that says what to do.
  if (process.env.NODE_ENV === 'production') {
    const problems = productionSecretProblems(process.env);
    const connector = process.env.CONNECTOR_SECRET_KEY && secretProblem('CONNECTOR_SECRET_KEY', process.env.CONNECTOR_SECRET_KEY);
    if (connector) problems.push(connector);
    if (problems.length) throw new Error(`Refusing to start in production:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = issueList(parsed.error.issues).map((i) => `  ${i.path}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const cluster = e.REDIS_CLUSTER_NODES.length > 0;
  const queuePrefix = e.QUEUE_PREFIX ?? (cluster ? '{triage}' : 'triage');
  // BullMQ's scripts touch several keys of a queue at once, which Redis Cluster allows only in one slot.
  if (cluster && !/\{[^}]+\}/.test(queuePrefix)) {
    throw new Error(`Invalid environment:\n  QUEUE_PREFIX: "${queuePrefix}" has no {hash tag}, which REDIS_CLUSTER_NODES needs (e.g. {triage})`);
  }
  // Outside production, secrets not configured are generated on first use and kept (mode 0600) so
  // the app, workers and CLI of one machine share them across restarts: the session key under
  // TRIAGE_STATE_DIR, the checkpoint key away from the checkpoints (lib/env-secrets.mjs).
  const authSecret = e.AUTH_SECRET ?? fileSecret(path.join(e.TRIAGE_STATE_DIR, 'auth-secret'));
  const checkpointKey = e.AUDIT_CHECKPOINT_KEY ?? generatedCheckpointKey(e);
  return {
    ...e,
    APP_URL: e.APP_URL ?? `http://localhost:${e.PORT}`,
    QUEUE_PREFIX: queuePrefix,
    DATABASE_URL: withDefaultUser(e.DATABASE_URL),
    DATABASE_REPLICA_URL: e.DATABASE_REPLICA_URL && withDefaultUser(e.DATABASE_REPLICA_URL),
    AUTH_SECRET: authSecret,
    AUDIT_CHECKPOINT_KEY: checkpointKey,
  };
}

function generatedCheckpointKey(e: z.infer<typeof schema>): string {
  const keyFile = checkpointKeyFile(process.env);
  // A path from the environment, not a file of the app: the build need not trace anything for it.
  const checkpoints = path.resolve(/*turbopackIgnore: true*/ e.AUDIT_CHECKPOINT_FILE ?? path.join(e.TRIAGE_STATE_DIR, 'audit-checkpoints.ndjson'));
  if (path.dirname(keyFile) === path.dirname(checkpoints)) {
    throw new Error(`Invalid environment:\n  AUDIT_CHECKPOINT_KEY_FILE: ${keyFile} is beside the checkpoint file ${checkpoints}; keep the key elsewhere`);
  }
  return fileSecret(keyFile);
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= load();
  return cached;
}

let connectorKey: string | undefined;

/**
 * The key of connector credentials at rest: CONNECTOR_SECRET_KEY, or one generated under
 * TRIAGE_STATE_DIR the first time a connector secret is sealed or opened (not at boot: most processes
 * never touch one).
 */
export function connectorSecretKey(): string {
  const e = env();
  connectorKey ??= e.CONNECTOR_SECRET_KEY ?? fileSecret(path.join(e.TRIAGE_STATE_DIR, 'connector-secret-key'));
  return connectorKey;
}

export function oidcConfigured(): boolean {
  const e = env();
  return Boolean(e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET);
}

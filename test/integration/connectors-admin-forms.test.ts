// The admin pages' connection forms (app/(dashboard)/admin/connection-kinds.ts) for every connector
// kind: what a filled-in create form posts becomes a source the API accepts and the connector parses,
// with the connector's own setting names (a form field the connector's strict schema does not know
// would be refused); the edit form's patch is accepted too. And the SQS source page's retention check
// says "could not check" in bounded time when SQS does not answer.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createPersonalToken } from '@/lib/admin/tokens';
import { connectorSourceOf } from '@/lib/connectors';
import { sourceTrapCheck } from '@/lib/connectors/trap-check';
import { closeDb, db } from '@/lib/db';
import { closeQueues } from '@/lib/queue';
import { updateSourceConnection } from '@/lib/sources/update-connection';
import * as sourcesRoute from '@/app/api/v1/sources/route';
import { CONNECTION_FORMS, connectionFromForm } from '@/app/(dashboard)/admin/connection-kinds';
import { CONNECTOR_KINDS, type ConnectorKind } from '@/lib/connectors/types';
import { resetDatabase } from '../support/db';
import { demoWorld } from './sla-fixtures';

let adminToken: string;

const parsed = async (name: string) => connectorSourceOf(await db().source.findUniqueOrThrow({ where: { name } })).source;

/**
 * The create form as an admin fills it in (name, team, kind and the kind's fields by their form
 * names), posted as the page does: the API's answer.
 */
async function createFromForm(kind: ConnectorKind, name: string, fields: Record<string, string>) {
  const f = new FormData();
  for (const [k, v] of Object.entries({ name, team: 'commerce', kind, ...fields })) f.set(k, v);
  const body = { name, team: 'commerce', kind, ...connectionFromForm(kind, f, 'create') };
  const res = await sourcesRoute.POST(
    new Request('http://127.0.0.1:3000/api/v1/sources', {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({}) },
  );
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** createFromForm for a form the API takes (201): the stored source as its connector parses it, and the API's answer. */
async function createdFromForm(kind: ConnectorKind, name: string, fields: Record<string, string>) {
  const created = await createFromForm(kind, name, fields);
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return { ...(await parsed(name)), answer: created.json };
}

describe('the admin connection forms', () => {
  beforeAll(async () => {
    await resetDatabase();
    await demoWorld();
    adminToken = (await createPersonalToken(SYSTEM, 'admin@triage.local')).token;
  });
  afterAll(async () => {
    await closeQueues();
    await closeDb();
  });

  it('has a form for every connector kind', () => {
    expect(CONNECTOR_KINDS.filter((k) => !CONNECTION_FORMS[k])).toEqual([]);
  });

  it('creates an SQS source from the form, with or without access keys', async () => {
    const queueUrl = 'http://127.0.0.1:4566/000000000000/orders-dlq';
    const s = await createdFromForm('sqs', 'orders-sqs', {
      'connection.queueUrl': queueUrl,
      'connection.sourceQueueUrl': 'http://127.0.0.1:4566/000000000000/orders',
      'connection.endpoint': 'http://127.0.0.1:4566',
      'connection.region': 'eu-west-1',
      'connection.envelope': 'lambda-destination',
      'secret.accessKeyId': 'AKIAFORMTEST',
      'secret.secretAccessKey': 'form-secret-key-1',
      'errorText.messagePath': '$.error.message',
    });
    expect(s.config).toMatchObject({
      queueUrl,
      sourceQueueUrl: 'http://127.0.0.1:4566/000000000000/orders',
      endpoint: 'http://127.0.0.1:4566',
      region: 'eu-west-1',
      envelope: 'lambda-destination',
      errorText: { messagePath: '$.error.message' },
    });
    expect(s.secret).toEqual({ accessKeyId: 'AKIAFORMTEST', secretAccessKey: 'form-secret-key-1' });

    // Blank optional fields are left out: the SDK's environment gives the keys.
    const bare = await createdFromForm('sqs', 'orders-sqs-env', { 'connection.queueUrl': queueUrl, 'connection.region': '', 'secret.accessKeyId': '' });
    expect(bare.secret).toEqual({});
    expect(bare.config).toMatchObject({ envelope: 'auto' });
    const wrongEnvelope = await createFromForm('sqs', 'orders-sqs-wrapped', { 'connection.queueUrl': queueUrl, 'connection.envelope': 'kinesis' });
    expect(wrongEnvelope.status).toBe(422);

    const half = await createFromForm('sqs', 'orders-sqs-half', { 'connection.queueUrl': queueUrl, 'secret.accessKeyId': 'AKIAFORMTEST' });
    expect(half.status).toBe(422);
    expect(half.json.error.message).toContain('an access key id and a secret access key go together');
  });

  it('creates an Azure queue source from the form, by connection string or by account name and key', async () => {
    const cs = 'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Zm9ybS1rZXk=;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;';
    const s = await createdFromForm('azure_queue', 'orders-azure', {
      'secret.connectionString': cs,
      'connection.queue': 'orders-poison',
      'connection.targetQueue': '',
      'connection.encoding': 'base64',
      'connection.endpoint': '',
      'secret.accountName': '',
      'secret.accountKey': '',
      'errorText.messagePath': '$.error',
    });
    expect(s.config).toMatchObject({ queue: 'orders-poison', encoding: 'base64', errorText: { messagePath: '$.error' } });
    expect(s.config).not.toHaveProperty('targetQueue');
    expect(s.secret).toEqual({ connectionString: cs });
    expect(JSON.stringify(s.answer)).not.toContain('Zm9ybS1rZXk=');

    const byKey = await createdFromForm('azure_queue', 'orders-azure-key', {
      'connection.queue': 'orders-poison',
      'connection.endpoint': 'https://ordersapp.queue.core.windows.net',
      'secret.accountName': 'ordersapp',
      'secret.accountKey': 'Zm9ybS1rZXk=',
    });
    expect(byKey.secret).toEqual({ accountName: 'ordersapp', accountKey: 'Zm9ybS1rZXk=' });

    const neither = await createFromForm('azure_queue', 'orders-azure-none', { 'connection.queue': 'orders-poison' });
    expect(neither.status).toBe(422);
    expect(neither.json.error.message).toContain('a connection string, or an account name and key');
  });

  it('creates a NATS source from the form, and the edit form switches delete-after-import', async () => {
    const s = await createdFromForm('nats', 'orders-nats', {
      'secret.url': 'nats://127.0.0.1:4222',
      'secret.user': 'app',
      'secret.pass': 'nats-form-pass-7',
      'connection.stream': 'ORDERS',
      'connection.consumer': 'orders-worker',
      'connection.deleteAfterImport': 'false',
    });
    expect(s.config).toMatchObject({ stream: 'ORDERS', consumer: 'orders-worker', deleteAfterImport: false });
    expect(s.secret).toEqual({ url: 'nats://127.0.0.1:4222', user: 'app', pass: 'nats-form-pass-7' });

    const edit = new FormData();
    edit.set('connection.stream', 'ORDERS');
    edit.set('connection.consumer', 'orders-worker');
    edit.set('connection.deleteAfterImport', 'true');
    const { changed } = await updateSourceConnection(SYSTEM, 'orders-nats', connectionFromForm('nats', edit, 'patch'));
    expect(changed).toBe(true);
    const after = await parsed('orders-nats');
    expect(after.config).toMatchObject({ deleteAfterImport: true });
    expect(after.secret).toEqual({ url: 'nats://127.0.0.1:4222', user: 'app', pass: 'nats-form-pass-7' });
  });

  // Each kind's form fields, by their form names, and the connector's settings they become.
  it.each<{ title: string; kind: ConnectorKind; name: string; fields: Record<string, string>; config: Record<string, unknown> }>([
    {
      title: "creates a BullMQ source whose after-import choice is the connector's removeAfterImport",
      kind: 'bullmq',
      name: 'emails-bull',
      fields: { 'secret.url': 'redis://127.0.0.1:6379/0', 'connection.queue': 'emails', 'connection.removeAfterImport': 'true' },
      config: { queue: 'emails', prefix: 'bull', removeAfterImport: true },
    },
    {
      title: "creates a Sidekiq source from the form: the namespace and the app's dead-set settings",
      kind: 'sidekiq',
      name: 'rails-sidekiq',
      fields: {
        'secret.url': 'redis://127.0.0.1:6379/4',
        'connection.namespace': 'shop',
        'connection.deadMaxJobs': '50000',
        'connection.retryCountAtLeast': '5',
        'connection.removeAfterImport': 'false',
      },
      config: { namespace: 'shop', deadMaxJobs: 50_000, deadTimeoutSeconds: 15_552_000, retryCountAtLeast: 5, removeAfterImport: false },
    },
    {
      title: 'creates a RabbitMQ source from the form',
      kind: 'rabbitmq',
      name: 'orders-rabbit',
      fields: { 'secret.url': 'amqp://guest:guest@127.0.0.1:5672/', 'connection.queue': 'orders.dlq', 'connection.prefetch': '50' },
      config: { queue: 'orders.dlq', prefetch: 50 },
    },
  ])('$title', async ({ kind, name, fields, config }) => {
    const s = await createdFromForm(kind, name, fields);
    expect(s.config).toMatchObject(config);
  });

  describe("an SQS source page's trap check", () => {
    let silent: Server;
    let port: number;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      // Accepts connections and never answers: an endpoint that swallows requests.
      silent = createServer((socket) => sockets.add(socket));
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      port = (silent.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => silent.close(r));
    });

    it('says it could not check, within its bound, when SQS does not answer', async () => {
      const endpoint = `http://127.0.0.1:${port}`;
      await createdFromForm('sqs', 'silent-sqs', {
        'connection.queueUrl': `${endpoint}/000000000000/orders-dlq`,
        'connection.sourceQueueUrl': `${endpoint}/000000000000/orders`,
        'connection.endpoint': endpoint,
        'connection.region': 'us-east-1',
        'secret.accessKeyId': 'AKIAFORMTEST',
        'secret.secretAccessKey': 'form-secret-key-1',
      });
      const check = await sourceTrapCheck(SYSTEM, 'silent-sqs', 500);
      expect(check).toEqual({ error: 'no answer from SQS within 1 s' });
    });
  });
});

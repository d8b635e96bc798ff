// The consumer process's core: one consumer per built-in source that has a handler, found in
// Postgres at start and again every few seconds, so a source created later gets its consumer
// without a restart, and a changed visibility timeout (BullMQ's lockDuration) takes effect.
import { pg } from '@/lib/db';
import { log } from '@/lib/log';
import { consume, type Consumer, type ConsumeOptions, type MessageHandler } from './consume';

export interface SourceHandler extends Pick<ConsumeOptions, 'consumerName' | 'consumerVersion'> {
  handle: MessageHandler;
}

/** The handler for a source, or undefined when this process has none (its messages wait). */
export type HandlerRegistry = (sourceName: string) => SourceHandler | undefined;

export interface ConsumerHost {
  /** Sources consumed right now. */
  sources(): string[];
  /** Look for new, changed and removed sources now. */
  discover(): Promise<void>;
  close(): Promise<void>;
}

export async function runConsumers(handlers: HandlerRegistry, opts: { discoveryMs: number; concurrency?: number }): Promise<ConsumerHost> {
  const running = new Map<string, Consumer>();
  const retiring = new Set<Promise<void>>();
  const unhandled = new Set<string>();
  let closed = false;
  let discovering: Promise<void> | null = null;

  async function reconcile(): Promise<void> {
    const rows = await pg()<{ name: string; visibilityTimeoutMs: number }[]>`
      SELECT name, visibility_timeout_ms AS "visibilityTimeoutMs" FROM sources WHERE kind = 'builtin' ORDER BY name`;
    const wanted = new Map(rows.map((r) => [r.name, r.visibilityTimeoutMs]));
    for (const [name, consumer] of running) {
      if (wanted.get(name) !== consumer.visibilityTimeoutMs) {
        running.delete(name);
        // Not awaited: the old consumer finishes the messages in hand while the new one starts.
        const stopping = consumer
          .close()
          .catch((err: unknown) => log.warn({ source: name, err: String(err) }, 'closing a consumer failed'))
          .finally(() => retiring.delete(stopping));
        retiring.add(stopping);
        log.info({ source: name }, wanted.has(name) ? 'visibility timeout changed: restarting consumer' : 'source gone: consumer stopped');
      }
    }
    for (const name of wanted.keys()) {
      if (closed || running.has(name)) continue;
      const handler = handlers(name);
      if (!handler) {
        if (!unhandled.has(name)) log.info({ source: name }, 'no handler in this process: messages wait in the queue');
        unhandled.add(name);
        continue;
      }
      running.set(name, await consume(name, handler.handle, { ...handler, concurrency: opts.concurrency }));
      log.info({ source: name }, 'consuming');
    }
  }

  function discover(): Promise<void> {
    discovering ??= reconcile().finally(() => {
      discovering = null;
    });
    return discovering;
  }

  await discover();
  const timer = setInterval(() => {
    discover().catch((err: unknown) => log.warn({ err: String(err) }, 'source discovery failed; trying again'));
  }, opts.discoveryMs);
  timer.unref();

  return {
    sources: () => [...running.keys()],
    discover,
    async close() {
      closed = true;
      clearInterval(timer);
      await discovering?.catch(() => {});
      await Promise.all([...running.values()].map((c) => c.close()).concat([...retiring]));
      running.clear();
    },
  };
}

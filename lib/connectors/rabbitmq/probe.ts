// "Test connection" for a RabbitMQ source. Over AMQP: the queue exists, its depth and consumers.
// With a management API URL (credentials from the AMQP URL): the queue's arguments and the exchanges
// bound to it (the dead-letter exchange among them).
import type { ChannelModel } from 'amqplib';
import type { ConnectorSource, ProbeReport } from '../types';
import { scrubSecrets } from '../secrets';
import type { RabbitmqConfig, RabbitmqSecret } from './config';
import { amqpError, connectAmqp, describeEndpoint } from './connection';

const MANAGEMENT_TIMEOUT_MS = 5_000;

async function management(source: ConnectorSource<RabbitmqConfig, RabbitmqSecret>, signal?: AbortSignal): Promise<ProbeReport['facts']> {
  const base = source.config.managementUrl!.replace(/\/+$/, '');
  const amqpUrl = new URL(source.secret.url);
  // The AMQP credentials are a write-only secret: they go to the broker's own host only, so the
  // management URL (typed apart from them) cannot read them back from somewhere else.
  const managementHost = new URL(base).hostname;
  if (managementHost !== amqpUrl.hostname) {
    return { management: `not read: the management URL's host ${managementHost} is not the broker's host ${amqpUrl.hostname}, and the broker's credentials go nowhere else` };
  }
  const vhost = amqpUrl.pathname.length > 1 ? decodeURIComponent(amqpUrl.pathname.slice(1)) : '/';
  const auth = `Basic ${Buffer.from(`${decodeURIComponent(amqpUrl.username) || 'guest'}:${decodeURIComponent(amqpUrl.password) || 'guest'}`).toString('base64')}`;
  const get = async (path: string) => {
    const res = await fetch(`${base}/api/${path}`, {
      headers: { authorization: auth },
      signal: AbortSignal.any([AbortSignal.timeout(MANAGEMENT_TIMEOUT_MS), ...(signal ? [signal] : [])]),
    });
    if (!res.ok) throw new Error(`management API answered HTTP ${res.status} for ${path.split('/')[0]}`);
    return res.json() as Promise<unknown>;
  };
  const q = encodeURIComponent(source.config.queue);
  const v = encodeURIComponent(vhost);
  try {
    const info = (await get(`queues/${v}/${q}`)) as { arguments?: Record<string, unknown>; type?: string };
    const bindings = (await get(`queues/${v}/${q}/bindings`)) as { source: string; routing_key: string }[];
    const bound = bindings.filter((b) => b.source !== '').map((b) => `${b.source} (${b.routing_key || '*'})`);
    return {
      queueType: info.type ?? null,
      arguments: JSON.stringify(info.arguments ?? {}),
      boundExchanges: bound.length ? bound.join(', ') : 'none (only the default exchange)',
    };
  } catch (err) {
    return { management: `not read: ${scrubSecrets(err instanceof Error ? err.message : String(err), source.secret)}` };
  }
}

export async function probeRabbitmq(source: ConnectorSource<RabbitmqConfig, RabbitmqSecret>, signal?: AbortSignal): Promise<ProbeReport> {
  const { url } = source.secret;
  const { queue } = source.config;
  let conn: ChannelModel | null = null;
  try {
    conn = await connectAmqp(url, `triage probe ${source.name}`);
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    const q = await ch.checkQueue(queue).catch((err: unknown) => {
      throw amqpError(err, url, queue);
    });
    const facts: ProbeReport['facts'] = {
      endpoint: describeEndpoint(url),
      queue,
      exists: true,
      depth: q.messageCount,
      consumers: q.consumerCount,
      ...(source.config.managementUrl ? await management(source, signal) : {}),
    };
    return { ok: true, summary: `Queue "${queue}" exists: ${q.messageCount} messages, ${q.consumerCount} consumers`, facts };
  } catch (err) {
    const error = amqpError(err, url, queue).message;
    return { ok: false, summary: error, facts: { endpoint: describeEndpoint(url), queue }, error };
  } finally {
    await conn?.close().catch(() => undefined);
  }
}

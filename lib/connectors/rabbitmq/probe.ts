// "Test connection" for a RabbitMQ source. Over AMQP: the queue exists, its depth and consumers.
// With a management API URL (credentials from the AMQP URL): the queue's arguments and the exchanges
// bound to it (the dead-letter exchange among them), and the queues that dead-letter into it, their
// settings checked against the known traps (./traps.ts). Without one, the traps say what could not
// be read.
import type { ChannelModel } from 'amqplib';
import type { ConnectorSource, ProbeReport } from '../types';
import { scrubSecrets } from '../secrets';
import { trapLine } from '../traps';
import type { RabbitmqConfig, RabbitmqSecret } from './config';
import { amqpError, connectAmqp, describeEndpoint } from './connection';
import { rabbitmqTraps, rabbitQueueSettings, sourceQueuesOf, type ManagementQueue, type RabbitSettingsRead } from './traps';

const MANAGEMENT_TIMEOUT_MS = 5_000;

/** What the management API showed: facts for the report, and the settings the traps are checked on. */
async function management(
  source: ConnectorSource<RabbitmqConfig, RabbitmqSecret>,
  signal?: AbortSignal,
): Promise<{ facts: ProbeReport['facts']; settings: RabbitSettingsRead }> {
  const base = source.config.managementUrl!.replace(/\/+$/, '');
  const amqpUrl = new URL(source.secret.url);
  // The AMQP credentials are a write-only secret: they go to the broker's own host only, so the
  // management URL (typed apart from them) cannot read them back from somewhere else.
  const managementHost = new URL(base).hostname;
  if (managementHost !== amqpUrl.hostname) {
    const why = `the management URL's host ${managementHost} is not the broker's host ${amqpUrl.hostname}, and the broker's credentials go nowhere else`;
    return { facts: { management: `not read: ${why}` }, settings: { unreadable: `(${why})` } };
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
    const info = (await get(`queues/${v}/${q}`)) as ManagementQueue;
    const bindings = (await get(`queues/${v}/${q}/bindings`)) as { source: string; routing_key: string }[];
    const exchanges = bindings.filter((b) => b.source !== '');
    const bound = exchanges.map((b) => `${b.source} (${b.routing_key || '*'})`);
    const queues = (await get(`queues/${v}?columns=name,type,arguments,effective_policy_definition`)) as ManagementQueue[];
    const sources = sourceQueuesOf(source.config.queue, [...new Set(exchanges.map((b) => b.source))], queues);
    return {
      facts: {
        queueType: info.type ?? null,
        arguments: JSON.stringify(info.arguments ?? {}),
        boundExchanges: bound.length ? bound.join(', ') : 'none (only the default exchange)',
        sourceQueues: sources.length ? sources.map((s) => `${s.name} (${s.type})`).join(', ') : 'none (no queue dead-letters into this one)',
      },
      settings: { dlq: rabbitQueueSettings({ ...info, name: source.config.queue }), sources },
    };
  } catch (err) {
    const why = scrubSecrets(err instanceof Error ? err.message : String(err), source.secret);
    return { facts: { management: `not read: ${why}` }, settings: { unreadable: `from the management API (${why})` } };
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
    const read = source.config.managementUrl ? await management(source, signal) : { facts: {}, settings: { unreadable: 'without the management API' } };
    const facts: ProbeReport['facts'] = {
      endpoint: describeEndpoint(url),
      queue,
      exists: true,
      depth: q.messageCount,
      consumers: q.consumerCount,
      ...read.facts,
    };
    const traps = rabbitmqTraps(read.settings);
    const warnings = traps.filter((t) => t.severity === 'warning').map(trapLine);
    return {
      ok: true,
      summary: `Queue "${queue}" exists: ${q.messageCount} messages, ${q.consumerCount} consumers`,
      facts,
      traps,
      ...(warnings.length ? { warnings } : {}),
    };
  } catch (err) {
    const error = amqpError(err, url, queue).message;
    return { ok: false, summary: error, facts: { endpoint: describeEndpoint(url), queue }, error };
  } finally {
    await conn?.close().catch(() => undefined);
  }
}

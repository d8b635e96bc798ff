// The traps of an Azure Storage poison queue, from what "test connection" reads (the queue, its oldest
// message's insertion and expiry) and the source's settings. Pure: lib/connectors/traps.ts has the shape.
import { duration, type Trap } from '../traps';
import type { AzureQueueConfig } from './config';

/** Past this expiry an Azure message never expires (a time to live of -1). */
const NEVER = Date.UTC(9000, 0, 1);
/** An oldest message with less than this left is about to be lost. */
const EXPIRY_WARNING_SECONDS = 24 * 3600;

export interface OldestMessage {
  insertedOn: Date;
  expiresOn: Date;
}

/**
 * The retention trap: Azure keeps a message for its time to live (7 d unless the sender set another),
 * counted from when it entered the poison queue. An import paused or failing longer loses it.
 */
export function messageTtlTrap(queue: string, oldest: OldestMessage | null, now: Date): Trap | null {
  if (!oldest || oldest.expiresOn.getTime() >= NEVER) return null;
  const ttl = Math.max(0, (oldest.expiresOn.getTime() - oldest.insertedOn.getTime()) / 1000);
  const left = (oldest.expiresOn.getTime() - now.getTime()) / 1000;
  const near = left < EXPIRY_WARNING_SECONDS;
  return {
    code: 'message_ttl',
    severity: near ? 'warning' : 'info',
    message:
      `Messages in "${queue}" expire ${duration(ttl)} after they entered it (their time to live; Azure's default is 7 d)` +
      (near ? `, and the oldest expires in ${duration(Math.max(0, left))}: ` : ': ') +
      `a dead letter not imported by then is deleted by Azure with its evidence.`,
    fix: near
      ? 'Resume or fix the import now; the messages cannot be given a longer time to live once sent.'
      : 'Keep the import running: a pause longer than the time to live loses messages.',
  };
}

/** Functions write no exception into a poison message (lib/connectors/azure-queue/message.ts). */
export function noErrorTextTrap(queue: string, config: Pick<AzureQueueConfig, 'errorText'>): Trap | null {
  const m = config.errorText ?? {};
  if (m.typePath || m.messagePath || m.stackPath || m.typeHeader || m.messageHeader || m.stackHeader) return null;
  return {
    code: 'no_error_text',
    severity: 'info',
    message: `Azure Functions put no exception into a poison message: dead letters from "${queue}" carry the error "PoisonMessage" with the queue and the payload's shape, and clusters group by those.`,
    fix: 'Where the application writes its error into the message body, set JSON paths for the error type, message and stack on the source (error text mapping).',
  };
}

/** maxDequeueCount lives in the function app's host.json, which Triage cannot read. */
export function maxDequeueCountNote(target: string | null): Trap {
  return {
    code: 'settings_not_readable',
    severity: 'info',
    message: `How often ${target ? `"${target}"` : 'the source queue'} is retried before a message moves to the poison queue is the function app's maxDequeueCount (host.json, default 5), which Triage cannot read. With 1, one failure of a good message sends it to the poison queue.`,
    fix: 'Keep extensions.queues.maxDequeueCount in host.json at 3 or more.',
  };
}

export function azureQueueTraps(config: AzureQueueConfig, target: string | null, oldest: OldestMessage | null, now: Date): Trap[] {
  return [messageTtlTrap(config.queue, oldest, now), noErrorTextTrap(config.queue, config), maxDequeueCountNote(target)].filter((t): t is Trap => t !== null);
}

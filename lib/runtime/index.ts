// The broker runtime: the core's semantics on BullMQ, durable. Applications send and consume;
// the redrive engine sends dead letters back (redriveToSource), and the consumer reports each
// redriven message's outcome to it (lib/intake/redrive-outcomes).
export { consume, type Consumer, type ConsumeOptions, type MessageHandler } from './consume';
export { runConsumers, type ConsumerHost, type HandlerRegistry, type SourceHandler } from './consumer-host';
export { TRIAGE_HEADERS, jobIdFor, type ReceivedMessage } from '@/lib/queue/envelope';
export { sourcePolicy, type RuntimePolicy } from './policy';
export { redriveToSource, send, sendMany, type OutgoingMessage, type RedriveMessage, type RedriveSent, type SendOptions } from './send';

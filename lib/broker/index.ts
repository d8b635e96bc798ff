// The pure broker core (no I/O, time passed in) and the error classification consumers use with it.
export {
  BrokerQueue,
  type BrokerQueueOptions,
  type BrokerStats,
  type DeadLetter,
  type DeadLetterReason,
  type Delivery,
  type Message,
  type MessageId,
  type Outcome,
} from './broker-queue';
export { MAX_BACKOFF_EXPONENT, backoffDelay, fullJitter, seededRandom } from './backoff';
export { PermanentError, classifyError, type ErrorClass } from './classify';
export { MinHeap } from './min-heap';
export { TimerHeap } from './timer-heap';
export { Timers } from './timers';
export { runRounds, type RoundsOptions, type RoundsReport } from './simulate';

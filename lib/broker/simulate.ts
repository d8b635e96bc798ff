// A deterministic round-based driver, the measurement model of reference/seeds/003: each round
// delivers every visible message once, then settles them. Used to reproduce the seed's tables and to
// weigh a maxReceives choice (wasted attempts against wrongly parked transient failures).
import type { BrokerQueue, Delivery, Outcome } from './broker-queue';

export interface RoundsOptions {
  /** Upper bound on rounds; the run stops earlier once nothing is ready, in flight or delayed. */
  rounds: number;
  /** Time between rounds; longer than any backoff or visibility timeout makes every retry due. */
  roundMs: number;
  startAt?: number;
  handle: (delivery: Delivery) => Outcome;
}

export interface RoundsReport {
  rounds: number;
  delivered: number;
  succeeded: number;
  /** Deliveries that did not succeed: retried or rejected. */
  wasted: number;
  /** Time of the last round run. */
  endAt: number;
}

export function runRounds(queue: BrokerQueue, options: RoundsOptions): RoundsReport {
  const report: RoundsReport = { rounds: 0, delivered: 0, succeeded: 0, wasted: 0, endAt: options.startAt ?? 0 };
  for (let round = 0; round < options.rounds; round++) {
    const { ready, inFlight, delayed } = queue.stats;
    if (ready + inFlight + delayed === 0) break;
    const now = (options.startAt ?? 0) + round * options.roundMs;
    // Receive the whole round first, as the seed selects all pending rows before processing them.
    const deliveries: Delivery[] = [];
    for (let delivery = queue.receive(now); delivery !== undefined; delivery = queue.receive(now)) {
      deliveries.push(delivery);
    }
    for (const delivery of deliveries) {
      const outcome = options.handle(delivery);
      queue.settle(delivery, outcome, now);
      if (outcome.kind === 'ack') report.succeeded += 1;
      else report.wasted += 1;
    }
    report.rounds += 1;
    report.delivered += deliveries.length;
    report.endAt = now;
  }
  return report;
}

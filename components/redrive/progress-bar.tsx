// A task's progress in one bar: acknowledged, no death seen, dead again, awaiting an outcome, skipped, failed, of the total.
import type { RedriveCounts } from '@/lib/redrive';
import styles from './redrive.module.css';

const pct = (n: number, total: number) => `${total > 0 ? (100 * n) / total : 0}%`;

export function ProgressBar({ counts, legend = false }: { counts: RedriveCounts; legend?: boolean }) {
  const { total } = counts;
  const handled = counts.sent + counts.skipped + counts.failed;
  const parts = [
    { key: 'ack', n: counts.acknowledged, label: 'acknowledged' },
    { key: 'quiet', n: counts.noDeathSeen, label: 'no death seen' },
    { key: 'dead', n: counts.deadAgain, label: 'dead again' },
    { key: 'awaiting', n: counts.awaitingOutcome, label: 'sent, awaiting outcome' },
    { key: 'skipped', n: counts.skipped, label: 'skipped' },
    { key: 'failed', n: counts.failed, label: 'failed' },
  ] as const;
  return (
    <div>
      <div
        className={styles.bar}
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={handled}
        aria-label={`${handled} of ${total} handled`}
        data-testid="redrive-progress"
      >
        {parts.map((p) => (p.n > 0 ? <span key={p.key} className={styles[p.key]} style={{ width: pct(p.n, total) }} title={`${p.n} ${p.label}`} /> : null))}
      </div>
      {legend ? (
        <div className={styles.legend}>
          {parts.map((p) => (
            <span key={p.key}>
              <i className={styles[p.key]} />
              {p.label}
            </span>
          ))}
        </div>
      ) : null}
    </div>
  );
}

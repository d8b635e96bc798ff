// The banner a source's pages show while any of its alarms is raised: what is wrong and the
// runbook's first step. Drop it on any page about one source: <AlarmBanner actor={…} sourceId={…} />.
import type { Principal } from '@/lib/auth';
import { listAlarmStates } from '@/lib/alarms/list-alarms';
import { formatDuration } from '@/lib/duration';
import styles from './alarm-banner.module.css';

export async function AlarmBanner({ actor, sourceId }: { actor: Principal; sourceId: string }) {
  const raised = (await listAlarmStates(actor, { sourceId })).filter((a) => a.state !== 'OK');
  if (raised.length === 0) return null;
  const top = raised[0]!;
  return (
    <div className={`${styles.banner} ${styles[top.state]}`} role="alert" data-testid="alarm-banner">
      <div>
        {raised.map((a) => (
          <span key={a.kind} className={`badge ${a.state}`}>
            {a.kind} {a.state} for {formatDuration((Date.now() - a.since.getTime()) / 1000)}
          </span>
        ))}
      </div>
      {top.label ? (
        <div>
          <strong>{top.label}</strong>: {top.hint}
        </div>
      ) : null}
    </div>
  );
}

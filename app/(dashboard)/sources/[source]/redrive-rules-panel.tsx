// The source page's redrive rules: each rule with its state, its last run, the task it
// started and why it is disabled; a lead of the source's team (or an admin) adds and switches them.
import Link from 'next/link';
import { canForTeam, type Actor } from '@/lib/auth';
import { listRedriveRules, type RedriveRuleView } from '@/lib/redrive-rules';
import { formatDuration } from '@/lib/duration';
import { NewRedriveRuleForm, RedriveRuleControls } from './redrive-rules-forms';

function when(r: RedriveRuleView): string {
  return r.kind === 'after_wave'
    ? `the rate alarm has been OK for ${formatDuration(r.okForSeconds ?? 0)} after a wave: redrive the wave's clusters`
    : 'a cluster is resolved with a fix version: redrive it';
}

export async function RedriveRulesPanel({ actor, source, teamId }: { actor: Actor; source: string; teamId: string }) {
  const rules = await listRedriveRules(actor, source);
  const mayEdit = canForTeam(actor, 'redrive.rules', teamId);
  return (
    <section className="card" data-testid="redrive-rules">
      <h2>Redrive rules</h2>
      <p className="muted">
        A rule starts an ordinary redrive task for its author (rate, canary, circuit breaker and approvals apply), one at a time per source, and disables itself
        when its task trips the breaker.
      </p>
      {rules.length ? (
        <table>
          <thead>
            <tr>
              <th>Rule</th>
              <th>When</th>
              <th>Rate</th>
              <th>State</th>
              <th>Last run (UTC)</th>
              <th>Task</th>
              {mayEdit ? <th>Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => (
              <tr key={r.id} data-testid={`redrive-rule-${r.name}`}>
                <td>
                  <strong>{r.name}</strong>
                  <div className="muted">by {r.author}</div>
                </td>
                <td>{when(r)}</td>
                <td>
                  {r.ratePerSecond}/s{r.canary ? ', canary first' : ''}
                </td>
                <td>
                  <span className={`badge ${r.enabled ? 'good' : 'warn'}`}>{r.enabled ? 'enabled' : 'disabled'}</span>
                  {!r.enabled && r.disabledReason ? <div data-testid="rule-disabled-reason">Why: {r.disabledReason}</div> : null}
                  {r.lastResult ? (
                    <div className="muted" data-testid="rule-last-result">
                      {r.lastResult}
                    </div>
                  ) : null}
                </td>
                <td>{r.lastRunAt ? r.lastRunAt.replace('T', ' ').slice(0, 19) : '—'}</td>
                <td>{r.lastTaskId ? <Link href={`/redrives/${r.lastTaskId}`}>{r.lastTaskId.slice(0, 8)}</Link> : '—'}</td>
                {mayEdit ? (
                  <td>
                    <RedriveRuleControls source={source} rule={r.id} name={r.name} enabled={r.enabled} />
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">No redrive rules.</p>
      )}
      {mayEdit ? <NewRedriveRuleForm source={source} /> : null}
    </section>
  );
}

// The source page's redrive rules: each rule with its state, its last run, the task it
// started and why it is disabled; a lead of the source's team (or an admin) adds and switches them.
import Link from 'next/link';
import { canForTeam, type Actor } from '@/lib/auth';
import { listRedriveRules, type RedriveRuleView } from '@/lib/redrive-rules';
import { formatDuration } from '@/lib/duration';
import { DataTable } from '@/components/data-table';
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
        <DataTable
          rows={rules}
          rowKey={(r) => r.id}
          rowProps={(r) => ({ 'data-testid': `redrive-rule-${r.name}` })}
          columns={[
            {
              header: 'Rule',
              cell: (r) => (
                <>
                  <strong>{r.name}</strong>
                  <div className="muted">by {r.author}</div>
                </>
              ),
            },
            { header: 'When', cell: when },
            { header: 'Rate', cell: (r) => `${r.ratePerSecond}/s${r.canary ? ', canary first' : ''}` },
            {
              header: 'State',
              cell: (r) => (
                <>
                  <span className={`badge ${r.enabled ? 'good' : 'warn'}`}>{r.enabled ? 'enabled' : 'disabled'}</span>
                  {!r.enabled && r.disabledReason ? <div data-testid="rule-disabled-reason">Why: {r.disabledReason}</div> : null}
                  {r.lastResult ? (
                    <div className="muted" data-testid="rule-last-result">
                      {r.lastResult}
                    </div>
                  ) : null}
                </>
              ),
            },
            { header: 'Last run (UTC)', cell: (r) => (r.lastRunAt ? r.lastRunAt.replace('T', ' ').slice(0, 19) : '—') },
            { header: 'Task', cell: (r) => (r.lastTaskId ? <Link href={`/redrives/${r.lastTaskId}`}>{r.lastTaskId.slice(0, 8)}</Link> : '—') },
            mayEdit && { header: 'Actions', cell: (r) => <RedriveRuleControls source={source} rule={r.id} name={r.name} enabled={r.enabled} /> },
          ]}
        />
      ) : (
        <p className="muted">No redrive rules.</p>
      )}
      {mayEdit ? <NewRedriveRuleForm source={source} /> : null}
    </section>
  );
}

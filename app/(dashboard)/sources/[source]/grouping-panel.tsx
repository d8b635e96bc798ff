// The source page's grouping rules: what new dead letters are grouped by on top of the
// fingerprint, and the progress of their latest re-application to the open ones.
import { canForTeam, type Actor } from '@/lib/auth';
import { latestRegroup } from '@/lib/clustering/regroup';
import { getGroupingRules } from '@/lib/clustering/set-grouping-rules';
import { GroupingRulesForm, ReapplyGroupingForm } from './grouping-forms';

export async function GroupingPanel({ actor, source, teamId }: { actor: Actor; source: string; teamId: string }) {
  const [{ rules, version }, run] = await Promise.all([getGroupingRules(actor, source), latestRegroup(actor, source)]);
  const mayEdit = canForTeam(actor, 'sources.grouping', teamId);
  const paths = rules?.groupBy.flatMap((f) => (f.field === 'payload' ? [f.path] : [])).join(', ') ?? '';
  const headers = rules?.groupBy.flatMap((f) => (f.field === 'header' ? [f.name] : [])).join(', ') ?? '';
  const positions = rules?.variablePositions.join(', ') ?? '';
  return (
    <section className="card" data-testid="grouping-panel">
      <h2>Grouping rules</h2>
      <p className="muted">
        Added to the default grouping (error type, message template, top frame) for new dead letters; version {version}.
        {rules ? '' : ' None: the fingerprint alone.'}
      </p>
      {mayEdit ? (
        <GroupingRulesForm source={source} paths={paths} headers={headers} positions={positions} />
      ) : rules ? (
        <p>
          Group by {[paths, headers].filter(Boolean).join(', ') || '—'}; variable positions {positions || '—'}
        </p>
      ) : null}
      {run ? (
        <p data-testid="regroup-progress">
          Latest re-application (rules version {run.ruleVersion}): {run.status}, {run.done.toLocaleString('en')} of {run.total.toLocaleString('en')} looked at,{' '}
          {run.moved.toLocaleString('en')} moved.
        </p>
      ) : null}
      {mayEdit ? <ReapplyGroupingForm source={source} /> : null}
    </section>
  );
}

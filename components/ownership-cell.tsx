// A cluster row's ownership in the inbox and /clusters: status, assignee, hold end, regression.
import type { ClusterSummary } from '@/lib/clustering/list-clusters';
import { STATUS_LABEL } from '@/lib/model/ownership-statuses';

export function OwnershipCell({ ownership }: { ownership: ClusterSummary['ownership'] }) {
  return (
    <td data-testid="cluster-owner">
      <span className={`badge${ownership.status === 'on_hold' ? ' warn' : ownership.status === 'resolved' ? ' good' : ''}`} data-testid="cluster-owner-status">
        {STATUS_LABEL[ownership.status]}
      </span>{' '}
      <span data-testid="cluster-assignee">{ownership.assignee ?? 'unassigned'}</span>
      {ownership.holdUntil ? <div className="muted">until {ownership.holdUntil.slice(0, 10)}</div> : null}
      {ownership.regressedAt && ownership.status !== 'resolved' ? <div className="error">regression</div> : null}
    </td>
  );
}

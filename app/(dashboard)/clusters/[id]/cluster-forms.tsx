'use client';
// The cluster page's decisions: archive the whole cluster, merge it into another. Each posts to a
// server action and shows its answer in place.
import { useRouter } from 'next/navigation';
import { useActionState, useEffect } from 'react';
import { FormStatus } from '@/components/form-status';
import { archiveClusterAction, mergeClusterAction } from './actions';

export function ArchiveClusterForm({ clusterId, open }: { clusterId: string; open: number }) {
  const [state, action, pending] = useActionState(archiveClusterAction, {});
  return (
    <form action={action} className="inline" data-testid="archive-cluster-form">
      <input type="hidden" name="clusterId" value={clusterId} />
      <label>
        Reason to archive
        <input name="reason" required maxLength={1000} size={60} placeholder="e.g. invalid for good: the partner sent a field we never supported" />
      </label>
      <button type="submit" disabled={pending || open === 0}>
        Archive {open.toLocaleString('en')} open dead letter{open === 1 ? '' : 's'}
      </button>
      <FormStatus state={state} />
    </form>
  );
}

export function MergeClusterForm({ clusterId, candidates }: { clusterId: string; candidates: { id: string; label: string }[] }) {
  const [state, action, pending] = useActionState(mergeClusterAction, {});
  const router = useRouter();
  const into = state.ok ? state.into : undefined;
  useEffect(() => {
    if (into) router.push(`/clusters/${into}`);
  }, [into, router]);
  return (
    <form action={action} className="inline" data-testid="merge-cluster-form">
      <input type="hidden" name="clusterId" value={clusterId} />
      <label>
        Merge into (cluster id)
        <input name="into" required list="merge-candidates" size={38} placeholder="the cluster that stays" />
        <datalist id="merge-candidates">
          {candidates.map((c) => (
            <option key={c.id} value={c.id} label={c.label} />
          ))}
        </datalist>
      </label>
      <label>
        Reason
        <input name="reason" required maxLength={1000} size={40} placeholder="e.g. the same outage, worded two ways" />
      </label>
      <button type="submit" className="secondary" disabled={pending}>
        Merge
      </button>
      <FormStatus state={state} />
    </form>
  );
}

'use client';
// The cluster page's decisions: archive the whole cluster, merge it into another. Each posts to a
// server action and shows its answer in place.
import { useRouter } from 'next/navigation';
import { useEffect } from 'react';
import { FormStatus } from '@/components/form-status';
import { archiveClusterAction, mergeClusterAction } from './actions';
import { useActionForm } from '@/components/use-action-form';
import { LimitedInput } from '@/components/limited-input';

export function ArchiveClusterForm({ clusterId, open }: { clusterId: string; open: number }) {
  const [state, formProps, pending] = useActionForm(archiveClusterAction);
  return (
    <form {...formProps} className="inline" data-testid="archive-cluster-form">
      <input type="hidden" name="clusterId" value={clusterId} />
      <label>
        Reason to archive
        <LimitedInput name="reason" required limit={1000} size={60} placeholder="e.g. invalid for good: the partner sent a field we never supported" />
      </label>
      <button type="submit" disabled={pending || open === 0}>
        Archive {open.toLocaleString('en')} open dead letter{open === 1 ? '' : 's'}
      </button>
      <FormStatus state={state} />
    </form>
  );
}

export function MergeClusterForm({ clusterId, candidates }: { clusterId: string; candidates: { id: string; label: string }[] }) {
  const [state, formProps, pending] = useActionForm(mergeClusterAction);
  const router = useRouter();
  const into = state.ok ? state.into : undefined;
  useEffect(() => {
    if (into) router.push(`/clusters/${into}`);
  }, [into, router]);
  return (
    <form {...formProps} className="inline" data-testid="merge-cluster-form">
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
        <LimitedInput name="reason" required limit={1000} size={40} placeholder="e.g. the same outage, worded two ways" />
      </label>
      <button type="submit" className="secondary" disabled={pending}>
        Merge
      </button>
      <FormStatus state={state} />
    </form>
  );
}

// /redrives/transform — bulk transform and redrive of a selection or cluster (?cluster=, ?ids=, ?source=, ?selection=): preview first
import { pageActor } from '@/lib/auth/guard';
import { selectionFromPage } from '@/components/redrive/selection-query';
import { TransformForm } from './transform-form';

export default async function TransformPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  await pageActor('deadletters.edit');
  const sp = await searchParams;
  const { selection, problem } = selectionFromPage(sp);
  return (
    <>
      <h1>Transform and redrive</h1>
      <p className="muted">
        A declared transform of every open dead letter of the selection: set, rename or remove JSON paths, replace a header. Each transformed copy is stored as
        a version of its dead letter; those it cannot apply to (not JSON, path missing) are listed and not sent.
      </p>
      {problem || !selection ? <p className="error">{problem ?? 'Open this page from a cluster or a selection.'}</p> : <TransformForm selection={selection} />}
    </>
  );
}

// /admin/sources/:source — a connector source's connection: its settings, replacement credentials
// (the stored ones are never sent to the page, only "set"), its error-text mapping, and a test.
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { pageActor } from '@/lib/auth/guard';
import { isConnectorKind } from '@/lib/connectors/types';
import { AppError } from '@/lib/errors';
import { getSource } from '@/lib/sources/get-source';
import { TestConnection } from '@/components/connector-forms';
import { updateConnectionAction } from '../../actions';
import { ConnectionFields } from '../../connection-fields';
import { AdminForm } from '../../forms';
import { LimitedInput } from '@/components/limited-input';

export default async function AdminSourcePage({ params }: { params: Promise<{ source: string }> }) {
  const actor = await pageActor('admin.manage');
  const ref = (await params).source;
  const source = await getSource(actor, ref).catch((e: unknown) => {
    if (e instanceof AppError && e.code === 'not_found') notFound();
    throw e;
  });
  if (!isConnectorKind(source.kind)) notFound();
  return (
    <>
      <h1>Connection of {source.name}</h1>
      <p className="muted">
        Team {source.team} · {source.kind} · <Link href={`/sources/${encodeURIComponent(source.name)}`}>source page (health)</Link> ·{' '}
        <Link href="/admin">admin</Link>
      </p>
      <div className="card">
        <AdminForm action={updateConnectionAction} submit="Save connection" testId="connection-form">
          <input type="hidden" name="source" value={source.name} />
          <input type="hidden" name="kind" value={source.kind} />
          <ConnectionFields kind={source.kind} values={{ connection: source.connection ?? {}, credentialsSet: source.credentialsSet ?? false }} />
          <label>
            Description
            <LimitedInput limit={500} name="description" defaultValue={source.description ?? ''} />
          </label>
        </AdminForm>
      </div>
      <div className="card">
        <TestConnection source={source.name} />
      </div>
    </>
  );
}

'use client';
// Create a source: name, team, kind, and for a connector kind its connection fields.
import { useState } from 'react';
import type { ConnectorKind } from '@/lib/connectors/types';
import { createSourceAction } from './actions';
import { ConnectionFields } from './connection-fields';
import { AdminForm } from './forms';

export function CreateSourceForm({ teams, connectorKinds }: { teams: string[]; connectorKinds: { kind: ConnectorKind; label: string; available: boolean }[] }) {
  const [kind, setKind] = useState('builtin');
  const connector = connectorKinds.find((k) => k.kind === kind);
  return (
    <AdminForm action={createSourceAction} submit="Create source" testId="create-source">
      <label>
        Name
        <input name="name" required pattern="[a-z0-9][a-z0-9._-]{0,62}" />
      </label>
      <label>
        Team
        <select name="team" required>
          {teams.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label>
        Kind
        <select name="kind" value={kind} onChange={(e) => setKind(e.target.value)}>
          <option value="builtin">built-in queue</option>
          <option value="ingest">ingest API</option>
          {connectorKinds.map((k) => (
            <option key={k.kind} value={k.kind} disabled={!k.available}>
              {k.label}
              {k.available ? '' : ' (not in this version)'}
            </option>
          ))}
        </select>
      </label>
      {connector ? <ConnectionFields key={connector.kind} kind={connector.kind} /> : null}
    </AdminForm>
  );
}

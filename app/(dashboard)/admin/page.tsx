// /admin — users, roles, teams, sources, tokens, the roles allowed an assistant
import { ROLES } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { listTeams } from '@/lib/admin/teams';
import { listTokens } from '@/lib/admin/tokens';
import { assistantRoles } from '@/lib/auth/assistant-access';
import { listUsers } from '@/lib/admin/users';
import Link from 'next/link';
import { registeredConnectorKinds } from '@/lib/connectors';
import { CONNECTOR_KINDS, isConnectorKind } from '@/lib/connectors/types';
import { listSources } from '@/lib/sources/list-sources';
import { createTeamAction, createTokenAction, createUserAction, revokeTokenAction, setAssistantRolesAction, updateUserAction } from './actions';
import { CONNECTION_FORMS } from './connection-kinds';
import { CreateSourceForm } from './create-source-form';
import { AdminForm } from './forms';
import { DataTable } from '@/components/data-table';
import { LimitedInput } from '@/components/limited-input';

type Users = Awaited<ReturnType<typeof listUsers>>;
type Teams = Awaited<ReturnType<typeof listTeams>>;
type Sources = Awaited<ReturnType<typeof listSources>>;

export default async function AdminPage() {
  const actor = await pageActor('admin.manage');
  const [users, teams, sources, tokens, assistant] = await Promise.all([
    listUsers(),
    listTeams(),
    listSources(actor, 'admin.manage'),
    listTokens(),
    assistantRoles(),
  ]);
  return (
    <>
      <h1>Admin</h1>
      <UsersSection users={users} teams={teams} />
      <TeamsSection teams={teams} />
      <SourcesSection sources={sources} teams={teams} />
      <TokensSection tokens={tokens} sources={sources} users={users} />
      <AssistantSection allowed={assistant} />
    </>
  );
}

/** Whose users may act through an MCP assistant (docs/assistant.md); with a token of the assistant scope. */
function AssistantSection({ allowed }: { allowed: string[] }) {
  return (
    <>
      <h2>Assistant (MCP)</h2>
      <p className="muted">
        The roles whose users may act through an assistant at <code>/api/mcp</code>, with a personal token created for the assistant. It acts as its user,
        audited via assistant; it never reveals a masked value, approves a redrive or redrives an outage.
      </p>
      <div className="card">
        <AdminForm action={setAssistantRolesAction} submit="Save assistant roles">
          <fieldset>
            <legend>Allowed roles</legend>
            {ROLES.map((r) => (
              <label key={r}>
                <input type="checkbox" name="roles" value={r} defaultChecked={allowed.includes(r)} /> {r}
              </label>
            ))}
          </fieldset>
        </AdminForm>
      </div>
    </>
  );
}

/** A user's role, picked from every role. */
function RoleOptions() {
  return ROLES.map((r) => <option key={r}>{r}</option>);
}

/** A user's team is picked from the teams, or none (an auditor or admin needs none). */
function TeamOptions({ teams }: { teams: Teams }) {
  return (
    <>
      <option value="">(no team)</option>
      {teams.map((t) => (
        <option key={t.id} value={t.name}>
          {t.name}
        </option>
      ))}
    </>
  );
}

function UsersSection({ users, teams }: { users: Users; teams: Teams }) {
  return (
    <>
      <h2>Users</h2>
      <DataTable
        testId="users-table"
        rows={users}
        rowKey={(u) => u.id}
        rowProps={(u) => ({ 'data-email': u.email })}
        columns={[
          { header: 'E-mail', cell: (u) => u.email },
          { header: 'Role', cell: (u) => u.role },
          { header: 'Team', cell: (u) => u.team?.name ?? '—' },
          { header: 'Status', cell: (u) => (u.disabled ? <span className="badge bad">disabled</span> : <span className="badge good">active</span>) },
          {
            header: 'Change',
            cell: (u) => (
              <AdminForm action={updateUserAction} submit="Save">
                <input type="hidden" name="userId" value={u.id} />
                <select name="role" defaultValue={u.role} aria-label="role">
                  <RoleOptions />
                </select>
                <select name="team" defaultValue={u.team?.name ?? ''} aria-label="team">
                  <TeamOptions teams={teams} />
                </select>
                <select name="disabled" defaultValue={String(u.disabled)} aria-label="status">
                  <option value="false">active</option>
                  <option value="true">disabled</option>
                </select>
              </AdminForm>
            ),
          },
        ]}
      />
      <div className="card" style={{ marginTop: 12 }}>
        <AdminForm action={createUserAction} submit="Create user" testId="create-user">
          <label>
            E-mail
            <LimitedInput limit={320} name="email" type="email" required />
          </label>
          <label>
            Role
            <select name="role">
              <RoleOptions />
            </select>
          </label>
          <label>
            Team
            <select name="team">
              <TeamOptions teams={teams} />
            </select>
          </label>
          <label>
            Password
            <input name="password" type="password" minLength={8} required />
          </label>
        </AdminForm>
      </div>
    </>
  );
}

function TeamsSection({ teams }: { teams: Teams }) {
  return (
    <>
      <h2>Teams</h2>
      <p>{teams.map((t) => t.name).join(', ') || 'none yet'}</p>
      <div className="card">
        <AdminForm action={createTeamAction} submit="Create team">
          <label>
            Name
            <LimitedInput limit={100} name="name" required />
          </label>
        </AdminForm>
      </div>
    </>
  );
}

function SourcesSection({ sources, teams }: { sources: Sources; teams: Teams }) {
  // The kinds the create form offers: available where this build registers the connector and has its connection form.
  const registered = new Set(registeredConnectorKinds());
  const connectorKinds = CONNECTOR_KINDS.map((kind) => ({
    kind,
    label: CONNECTION_FORMS[kind]?.label ?? kind,
    available: registered.has(kind) && CONNECTION_FORMS[kind] !== undefined,
  }));
  return (
    <>
      <h2>Sources</h2>
      <DataTable
        rows={sources}
        rowKey={(s) => s.id}
        rowProps={(s) => ({ 'data-source': s.name })}
        columns={[
          { header: 'Name', cell: (s) => <Link href={`/sources/${encodeURIComponent(s.name)}`}>{s.name}</Link> },
          { header: 'Team', cell: (s) => s.team.name },
          { header: 'Kind', cell: (s) => s.kind },
          { header: 'Max receives', cell: (s) => s.maxReceives },
          { header: 'Max redrives', cell: (s) => s.maxRedrives },
          {
            header: 'Connection',
            cell: (s) =>
              isConnectorKind(s.kind) ? (
                <>
                  <Link href={`/admin/sources/${encodeURIComponent(s.name)}`}>edit connection</Link>
                  {s.importPaused ? <span className="badge warn">import paused</span> : null}
                </>
              ) : (
                '—'
              ),
          },
        ]}
      />
      <div className="card" style={{ marginTop: 12 }}>
        <CreateSourceForm teams={teams.map((t) => t.name)} connectorKinds={connectorKinds} />
      </div>
    </>
  );
}

/** Whom a token is for, picked by name: a source (an ingest token) or a user (a personal one). */
function OwnerSelect({ label, name, options }: { label: string; name: string; options: [id: string, text: string][] }) {
  return (
    <label>
      {label}
      <select name={name} required>
        {options.map(([id, text]) => (
          <option key={id}>{text}</option>
        ))}
      </select>
    </label>
  );
}

function TokensSection({ tokens, sources, users }: { tokens: Awaited<ReturnType<typeof listTokens>>; sources: Sources; users: Users }) {
  return (
    <>
      <h2>Tokens</h2>
      <DataTable
        rows={tokens}
        rowKey={(t) => t.id}
        columns={[
          { header: 'Prefix', cell: (t) => <code>{t.prefix}…</code> },
          { header: 'Kind', cell: (t) => (t.scopes.includes('assistant') ? `${t.kind}, assistant` : t.kind) },
          { header: 'For', cell: (t) => t.source?.name ?? t.user?.email },
          { header: 'Created', cell: (t) => t.createdAt.toISOString() },
          {
            header: '',
            cell: (t) =>
              t.revokedAt ? (
                <span className="badge bad">revoked</span>
              ) : (
                <AdminForm action={revokeTokenAction} submit="Revoke">
                  <input type="hidden" name="tokenId" value={t.id} />
                </AdminForm>
              ),
          },
        ]}
      />
      <div className="card" style={{ marginTop: 12 }}>
        <AdminForm action={createTokenAction} submit="Create ingest token">
          <OwnerSelect label="Source" name="source" options={sources.map((s) => [s.id, s.name])} />
        </AdminForm>
        <div style={{ height: 8 }} />
        <AdminForm action={createTokenAction} submit="Create personal token">
          <OwnerSelect label="User" name="user" options={users.map((u) => [u.id, u.email])} />
          <label>
            <input type="checkbox" name="assistant" /> An assistant&apos;s token (MCP: audited &ldquo;via assistant&rdquo;, never reveals or approves)
          </label>
        </AdminForm>
      </div>
    </>
  );
}

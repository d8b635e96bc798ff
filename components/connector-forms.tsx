'use client';
// "Test connection" and the import switch of a connector source: on the source page and on its admin
// page. The actions belong to the source route.
import { FormStatus } from '@/components/form-status';
import { TrapList } from '@/components/trap-list';
import { trapLine } from '@/lib/connectors/traps';
import { setImportPausedAction, testConnectionAction } from '@/app/(dashboard)/sources/[source]/connector-actions';
import { useActionForm } from '@/components/use-action-form';
import { LimitedInput } from '@/components/limited-input';

export function TestConnection({ source }: { source: string }) {
  const [state, formProps, pending] = useActionForm(testConnectionAction);
  const r = state.ok ? state.report : undefined;
  // A warning trap's line is also in `warnings`: show it once, with its fix.
  const trapLines = new Set(r?.traps?.map(trapLine));
  return (
    <form {...formProps} data-testid="connection-test">
      <input type="hidden" name="source" value={source} />
      <button type="submit" className="secondary" disabled={pending}>
        {pending ? 'Testing…' : 'Test connection'}
      </button>
      <FormStatus state={state} />
      {r ? (
        <div role="status" data-testid="connection-report" style={{ marginTop: 8 }}>
          <span className={`badge ${r.ok ? 'good' : 'bad'}`}>{r.ok ? 'connected' : 'failed'}</span> {r.summary}
          <TrapList traps={r.traps ?? []} testId="connection-trap" />
          {r.warnings
            ?.filter((w) => !trapLines.has(w))
            .map((w) => (
              <p key={w} className="badge warn" data-testid="connection-warning" style={{ marginTop: 8, whiteSpace: 'normal' }}>
                {w}
              </p>
            ))}
          {Object.keys(r.facts).length ? (
            <table style={{ marginTop: 8 }}>
              <tbody>
                {Object.entries(r.facts).map(([k, v]) => (
                  <tr key={k} data-fact={k}>
                    <th>{k}</th>
                    <td>{v === null ? '—' : String(v)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}

export function ImportSwitch({ source, paused }: { source: string; paused: boolean }) {
  const [state, formProps, pending] = useActionForm(setImportPausedAction);
  return (
    <form {...formProps} className="inline" data-testid="import-switch">
      <input type="hidden" name="source" value={source} />
      <input type="hidden" name="paused" value={paused ? 'false' : 'true'} />
      <label>
        Reason (audited)
        <LimitedInput limit={1000} name="reason" placeholder="optional" />
      </label>
      <button type="submit" className={paused ? undefined : 'secondary'} disabled={pending}>
        {paused ? 'Resume import' : 'Pause import'}
      </button>
      <FormStatus state={state} />
    </form>
  );
}

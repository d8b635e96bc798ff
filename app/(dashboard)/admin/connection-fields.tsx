'use client';
// The connection fields of one connector kind (CONNECTION_FORMS), for the create and edit forms.
// Secrets are never sent to the page: a stored one shows as "set", with a field to replace it.
import type { ConnectorKind } from '@/lib/connectors/types';
import { CONNECTION_FORMS, ERROR_TEXT_FIELDS, type ConnectionField } from './connection-kinds';

export interface ConnectionValues {
  connection: Record<string, unknown>;
  /** Whether credentials are stored (edit form). */
  credentialsSet: boolean;
}

function Field({ f, prefix, value, credentialsSet }: { f: ConnectionField; prefix: string; value: unknown; credentialsSet: boolean }) {
  const name = `${prefix}.${f.name}`;
  if (f.type === 'secret') {
    return (
      <label>
        {credentialsSet ? `${f.label}: set — replace` : f.label}
        <input
          name={name}
          type="password"
          autoComplete="new-password"
          required={f.required && !credentialsSet}
          placeholder={credentialsSet ? 'set: blank keeps it' : f.placeholder}
          aria-label={f.label}
        />
      </label>
    );
  }
  if (f.type === 'select' || f.type === 'boolean') {
    return (
      <label>
        {f.label}
        <select name={name} defaultValue={typeof value === 'string' || typeof value === 'boolean' ? String(value) : f.options?.[0]?.value} aria-label={f.label}>
          {f.options?.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
    );
  }
  return (
    <label>
      {f.label}
      <input
        name={name}
        type={f.type}
        required={f.required}
        placeholder={f.placeholder}
        defaultValue={value === undefined || value === null ? '' : String(value)}
        aria-label={f.label}
        {...(f.type === 'number' ? { min: 1, step: 1 } : {})}
      />
    </label>
  );
}

export function ConnectionFields({ kind, values }: { kind: ConnectorKind; values?: ConnectionValues }) {
  const spec = CONNECTION_FORMS[kind];
  if (!spec) return <p className="muted">This version cannot set up {kind} sources from the page yet.</p>;
  const connection = values?.connection ?? {};
  const mapping = (connection.errorText ?? {}) as Record<string, unknown>;
  return (
    <fieldset data-testid={`connection-fields-${kind}`} style={{ border: 'none', padding: 0, margin: 0, display: 'contents' }}>
      {spec.fields.map((f) => (
        <Field
          key={f.name}
          f={f}
          prefix={f.type === 'secret' ? 'secret' : 'connection'}
          value={connection[f.name]}
          credentialsSet={values?.credentialsSet ?? false}
        />
      ))}
      {spec.errorText ? (
        <details style={{ flexBasis: '100%' }} open={Object.keys(mapping).length > 0}>
          <summary className="muted">Where the error text lives (optional: Spring, MassTransit and NServiceBus headers are read without it)</summary>
          <div className="inline" style={{ display: 'flex', gap: 8, flexWrap: 'wrap', marginTop: 8 }}>
            {ERROR_TEXT_FIELDS.map((f) => (
              <Field key={f.name} f={f} prefix="errorText" value={mapping[f.name]} credentialsSet={false} />
            ))}
          </div>
        </details>
      ) : null}
    </fieldset>
  );
}

// The trail's filter form: a plain GET form, so a filtered view is a link one can share.
import { SourceSelect } from '@/components/filter-fields';
import type { AuditFilter } from '@/lib/audit-trail/filter';
import styles from './audit.module.css';

const local = (d: Date | undefined) => (d ? d.toISOString().slice(0, 16) : '');

export function AuditFilters({ filter, actions, sources }: { filter: AuditFilter; actions: string[]; sources: { id: string; name: string }[] }) {
  return (
    <form method="get" action="/audit" className="card" data-testid="audit-filters">
      <div className={styles.filters}>
        <label>
          Actor (e-mail or id)
          <input name="actor" defaultValue={filter.actor ?? ''} />
        </label>
        <label>
          Action (exact, or a prefix like redrive.)
          <input name="action" defaultValue={filter.action ?? ''} list="audit-actions" />
          <datalist id="audit-actions">
            {actions.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <SourceSelect sources={sources} value={filter.source ?? ''} anyLabel="(any)" />
        <label>
          Target type
          <input name="targetType" defaultValue={filter.targetType ?? ''} placeholder="e.g. redrive_task" />
        </label>
        <label>
          Target id
          <input name="targetId" defaultValue={filter.targetId ?? ''} />
        </label>
        <label>
          From (UTC)
          <input name="from" type="datetime-local" defaultValue={local(filter.from)} />
        </label>
        <label>
          To (UTC)
          <input name="to" type="datetime-local" defaultValue={local(filter.to)} />
        </label>
        <div>
          <button type="submit">Filter</button> <a href="/audit">Clear</a>
        </div>
      </div>
    </form>
  );
}

// /dead-letters — every dead letter the user may read: filters, search, keyset pages, bulk decisions, export
import Link from 'next/link';
import { ZodError } from 'zod';
import { can } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { DEAD_LETTER_REASONS } from '@/lib/deadletters/record-dead-letters';
import { DEAD_LETTER_STATUSES, deadLetterFilters, filtersFromSearchParams, filtersToSearchParams, type DeadLetterFilters } from '@/lib/deadletters/filters';
import { countDeadLetters, listDeadLetters, type DeadLetterPage } from '@/lib/deadletters/list-dead-letters';
import { PAYLOAD_TEXT_CHARS, backlogSize } from '@/lib/search';
import { listSources } from '@/lib/sources/list-sources';
import { SaveViewForm } from '../views/forms';
import { OpenedView } from '../views/opened-view';
import { DeadLetterRows } from './dead-letter-rows';
import { BulkActions } from './forms';
import styles from './dead-letters.module.css';

type SearchParams = Record<string, string | string[] | undefined>;

function toParams(sp: SearchParams): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) p.append(k, x);
  return p;
}

const localInput = (d: Date | undefined) => (d ? d.toISOString().slice(0, 16) : '');

export default async function DeadLettersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await pageActor('deadletters.read');
  const params = toParams(await searchParams);
  let filters: DeadLetterFilters = deadLetterFilters.parse({});
  let problem: string | null = null;
  try {
    // The form's datetime-local fields carry no zone: they are read as UTC, as shown.
    for (const k of ['from', 'to']) {
      const v = params.get(k);
      if (v && /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(v)) params.set(k, `${v}:00Z`);
    }
    filters = filtersFromSearchParams(params);
  } catch (e) {
    if (!(e instanceof ZodError)) throw e;
    problem = e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  }
  const cursor = params.get('cursor');
  let page: DeadLetterPage = { deadLetters: [], nextCursor: null };
  let count = { count: 0, capped: false };
  try {
    if (!problem) [page, count] = await Promise.all([listDeadLetters(actor, filters, cursor, { limit: 50 }), countDeadLetters(actor, filters)]);
  } catch (e) {
    if (!(e instanceof AppError) || e.status !== 400) throw e;
    problem = e.message;
  }
  const sources = await listSources(actor);
  // Search reads what the indexer has written: say so while a burst is still being indexed.
  const unindexed = filters.q && !problem ? await backlogSize({ cap: 100_000, sourceIds: sources.map((s) => s.id) }) : { count: 0, capped: false };
  const query = filtersToSearchParams(filters);
  const matching = `${count.count.toLocaleString('en')}${count.capped ? '+' : ''}`;
  const exportHref = (format: string) => `/api/v1/dead-letters/export?${new URLSearchParams([...query, ['format', format]])}`;
  const one = (v: string[] | undefined) => v?.[0] ?? '';

  return (
    <>
      <h1>Dead letters</h1>
      <OpenedView actor={actor} id={params.get('view') ?? undefined} />
      <form method="get" className={`card ${styles.filters}`} data-testid="filters">
        <label>
          Source
          <select name="source" defaultValue={one(filters.source)}>
            <option value="">any</option>
            {sources.map((s) => (
              <option key={s.id} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select name="status" defaultValue={one(filters.status)}>
            <option value="">any</option>
            {DEAD_LETTER_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Reason
          <select name="reason" defaultValue={one(filters.reason)}>
            <option value="">any</option>
            {DEAD_LETTER_REASONS.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <label>
          Error type
          <input name="errorType" defaultValue={filters.errorType ?? ''} />
        </label>
        <label>
          Cluster
          <input name="clusterId" defaultValue={filters.clusterId ?? ''} placeholder="cluster id" />
        </label>
        <label>
          Dead from (UTC)
          <input type="datetime-local" name="from" defaultValue={localInput(filters.from)} />
        </label>
        <label>
          to (UTC)
          <input type="datetime-local" name="to" defaultValue={localInput(filters.to)} />
        </label>
        <label>
          Search payload and error text
          <input type="search" name="q" defaultValue={filters.q ?? ''} placeholder="at least 3 characters" />
        </label>
        <label>
          Sort
          <select name="sort" defaultValue={filters.sort}>
            <option value="newest">newest first</option>
            <option value="oldest">oldest first</option>
          </select>
        </label>
        <button type="submit">Apply</button>
        <Link href="/dead-letters">Reset</Link>
      </form>
      {problem ? (
        <p className="error" role="alert">
          {problem}
        </p>
      ) : can(actor.role, 'views.manage') ? (
        <SaveViewForm page="dead_letters" filters={query.toString()} canShare={!!actor.teamId} />
      ) : null}

      <p data-testid="match-count">
        <strong>{matching}</strong> matching{count.capped ? ' (counted up to 10,000)' : ''} · export <a href={exportHref('csv')}>CSV</a> ·{' '}
        <a href={exportHref('ndjson')}>NDJSON</a>
      </p>
      {filters.q && !problem ? (
        <p className="muted" data-testid="search-scope">
          Payload search covers the first {PAYLOAD_TEXT_CHARS.toLocaleString('en')} characters of each text payload.
        </p>
      ) : null}
      {unindexed.count > 0 ? (
        <p className="muted" data-testid="search-backlog">
          Search covers every dead letter but the {unindexed.count.toLocaleString('en')}
          {unindexed.capped ? '+' : ''} newest, which are still being indexed (usually seconds).
        </p>
      ) : null}

      <BulkActions filter={query.toString()} matching={matching} canArchive={can(actor.role, 'deadletters.archive')} canDiscard={can(actor.role, 'deadletters.discard')}
        canRedrive={can(actor.role, 'deadletters.redrive')}
      />

      <DeadLetterRows deadLetters={page.deadLetters} testId="dead-letters-table" selectable empty="No dead letters match." />
      <div className={styles.pager}>
        {cursor ? <Link href={`/dead-letters?${query}`}>← First page</Link> : null}
        {page.nextCursor ? <Link href={`/dead-letters?${new URLSearchParams([...query, ['cursor', page.nextCursor]])}`}>Next page →</Link> : null}
      </div>
    </>
  );
}

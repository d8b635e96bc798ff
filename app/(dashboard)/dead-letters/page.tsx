// /dead-letters — every dead letter the user may read: filters, search, keyset pages, bulk decisions, export
import Link from 'next/link';
import { can, type Actor } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { deadLetterFilters, filtersFromSearchParams, filtersToSearchParams, type DeadLetterFilters } from '@/lib/deadletters/filters';
import { countDeadLetters, listDeadLetters, type DeadLetterPage } from '@/lib/deadletters/list-dead-letters';
import { PAYLOAD_TEXT_CHARS, backlogSize } from '@/lib/search';
import { listSources } from '@/lib/sources/list-sources';
import { DeadLetterRows } from '@/components/dead-letter-rows';
import { FilterForm, PayloadSearchInput, ReasonSelect, SortSelect, SourceSelect, StatusSelect } from '@/components/filter-fields';
import { KeysetPager } from '@/components/keyset-pager';
import { OpenedView } from '@/components/opened-view';
import { ProblemOrSaveView } from '@/components/problem';
import { first, problemMessage, toParams, type SearchParams } from '@/components/search-params';
import { BulkActions, SearchRevealForm } from './forms';
import styles from './dead-letters.module.css';

type Count = { count: number; capped: boolean };
const countLabel = (c: Count) => `${c.count.toLocaleString('en')}${c.capped ? '+' : ''}`;

const localInput = (d: Date | undefined) => (d ? d.toISOString().slice(0, 16) : '');

export default async function DeadLettersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await pageActor('deadletters.read');
  const params = toParams(await searchParams);
  const cursor = params.get('cursor');
  const reveal = params.get('reveal') ?? undefined;
  const { filters, page, count, bulkCount, problem } = await loadPage(actor, params, cursor, reveal);
  const sources = await listSources(actor);
  // Search reads what the indexer has written: say so while a burst is still being indexed.
  const unindexed = filters.q && !problem ? await backlogSize({ cap: 100_000, sourceIds: sources.map((s) => s.id) }) : { count: 0, capped: false };
  const query = filtersToSearchParams(filters);
  // The pager keeps a search reveal; saved views, exports and bulk selections never carry one.
  const pagerQuery = reveal && !problem ? new URLSearchParams([...query, ['reveal', reveal]]) : query;
  const matching = countLabel(count);

  return (
    <>
      <h1>Dead letters</h1>
      <OpenedView actor={actor} id={params.get('view') ?? undefined} />
      <Filters filters={filters} sources={sources} typed={params} />
      <ProblemOrSaveView problem={problem} actor={actor} page="dead_letters" query={query} />

      <MatchCount matching={matching} count={count} query={query} />
      <SearchNotes searched={!!filters.q && !problem} unindexed={unindexed} />
      {filters.q && !problem ? <MaskedSearch revealed={!!reveal} canReveal={can(actor.role, 'payload.reveal')} filter={query.toString()} /> : null}

      <BulkActions
        filter={query.toString()}
        matching={countLabel(bulkCount)}
        canArchive={can(actor.role, 'deadletters.archive')}
        canDiscard={can(actor.role, 'deadletters.discard')}
        canRedrive={can(actor.role, 'deadletters.redrive')}
      />

      <DeadLetterRows deadLetters={page.deadLetters} testId="dead-letters-table" selectable empty="No dead letters match." />
      <KeysetPager path="/dead-letters" query={pagerQuery} cursor={cursor} nextCursor={page.nextCursor} />
    </>
  );
}

/** The filters of the query string and the page and count they select; a bad filter is a message, and no query runs. */
async function loadPage(actor: Actor, params: URLSearchParams, cursor: string | null, reveal: string | undefined) {
  let filters: DeadLetterFilters = deadLetterFilters.parse({});
  let page: DeadLetterPage = { deadLetters: [], nextCursor: null };
  let count: Count = { count: 0, capped: false };
  // What a decision over the filter takes: never matches inside masked values (no search reveal).
  let bulkCount: Count = count;
  let problem: string | null = null;
  try {
    // The form's datetime-local fields carry no zone: they are read as UTC, as shown.
    for (const k of ['from', 'to']) {
      const v = params.get(k);
      if (v && /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(v)) params.set(k, `${v}:00Z`);
    }
    filters = filtersFromSearchParams(params);
    [page, count, bulkCount] = await Promise.all([
      listDeadLetters(actor, filters, cursor, { limit: 50, reveal }),
      countDeadLetters(actor, filters, { reveal }),
      reveal ? countDeadLetters(actor, filters) : undefined,
    ]).then(([p, c, b]) => [p, c, b ?? c] as const);
  } catch (e) {
    problem = problemMessage(e);
  }
  return { filters, page, count, bulkCount, problem };
}

// `typed`: the query as sent, so a filter the page refused still shows what was typed in its field.
function Filters({ filters, sources, typed }: { filters: DeadLetterFilters; sources: { id: string; name: string }[]; typed: URLSearchParams }) {
  return (
    <FilterForm testId="filters" className={styles.filters}>
      <SourceSelect sources={sources} value={first(filters.source)} />
      <StatusSelect value={first(filters.status)} />
      <ReasonSelect value={first(filters.reason)} />
      <label>
        Error type
        <input name="errorType" defaultValue={filters.errorType ?? typed.get('errorType') ?? ''} />
      </label>
      <label>
        Cluster
        <input name="clusterId" defaultValue={filters.clusterId ?? typed.get('clusterId') ?? ''} placeholder="cluster id" />
      </label>
      <label>
        Dead from (UTC)
        <input type="datetime-local" name="from" defaultValue={localInput(filters.from)} />
      </label>
      <label>
        to (UTC)
        <input type="datetime-local" name="to" defaultValue={localInput(filters.to)} />
      </label>
      <PayloadSearchInput value={filters.q ?? typed.get('q') ?? ''} />
      <SortSelect value={filters.sort} />
      <button type="submit">Apply</button>
      <Link href="/dead-letters">Reset</Link>
    </FilterForm>
  );
}

function MatchCount({ matching, count, query }: { matching: string; count: Count; query: URLSearchParams }) {
  const exportHref = (format: string) => `/api/v1/dead-letters/export?${new URLSearchParams([...query, ['format', format]])}`;
  return (
    <p data-testid="match-count">
      <strong>{matching}</strong> matching{count.capped ? ' (counted up to 10,000)' : ''} · export <a href={exportHref('csv')}>CSV</a> ·{' '}
      <a href={exportHref('ndjson')}>NDJSON</a>
    </p>
  );
}

function SearchNotes({ searched, unindexed }: { searched: boolean; unindexed: Count }) {
  return (
    <>
      {searched ? (
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
    </>
  );
}

/**
 * Search never matches inside masked values by default (a match would tell what they hold); with
 * a search reveal (a reason, on the audit trail) it does for a while, and matches stay masked.
 */
function MaskedSearch({ revealed, canReveal, filter }: { revealed: boolean; canReveal: boolean; filter: string }) {
  if (revealed) {
    return (
      <p className="muted" data-testid="masked-search">
        Also matching inside masked values, through your search reveal (on the audit trail, for 15 minutes). Matches stay masked.
      </p>
    );
  }
  return (
    <div data-testid="masked-search">
      <p className="muted">Masked values (card numbers, e-mails, IBANs, sensitive fields) are not searched.</p>
      {canReveal ? <SearchRevealForm filter={filter} /> : null}
    </div>
  );
}

import type { RecordedEvent } from '@railyard/eventstore';
import { paginate, type PageInfo, type PageQuery } from '@railyard/testhealth';
import { historyEntryOf, type HistoryEntry } from './entry';

export const HISTORY_PAGE_SIZE = { min: 1, max: 1000, default: 100 } as const;

// Page tokens are not a security boundary here: a token only points into a stream the caller may
// read in full anyway. The MAC only catches tokens that were edited or cut short, and one fixed key
// lets every API replica continue a listing another replica started.
const TOKEN_KEY = 'railyard/queue-history/v1';

export interface HistoryQuery {
  since?: string;
  until?: string;
  page_query?: PageQuery;
}

export interface HistoryPage {
  events: HistoryEntry[];
  page: PageInfo;
}

/**
 * One page of a queue's stream, oldest first, restricted to `since` ≤ time < `until`. A token is
 * bound to the queue and the time range it was issued for; a bad size or token throws PageQueryError.
 */
export const historyPage = (queueId: string, stream: readonly RecordedEvent[], query: HistoryQuery): HistoryPage => {
  const since = query.since ? Date.parse(query.since) : -Infinity;
  const until = query.until ? Date.parse(query.until) : Infinity;
  const rows = stream.map(historyEntryOf).filter((e) => {
    const t = Date.parse(e.time);
    return t >= since && t < until;
  });
  const { rows: events, page } = paginate(rows, query.page_query ?? {}, (e) => [e.revision], TOKEN_KEY, {
    filter: { queueId, since: query.since ?? null, until: query.until ?? null },
    pageSize: HISTORY_PAGE_SIZE,
  });
  return { events, page };
};

import * as readModelTesting from '../testing';
import { PageQueryError } from '@railyard/testhealth';
import { historyPage } from './page';
import { replayQueue } from './replay';

const { RecordedEventFactory, prCancelled, prSubmitted, queueCreated, queueDeleted, testQueueId } = readModelTesting;
const Q = testQueueId('main');
const T = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();

const stream = () =>
  new RecordedEventFactory().record(
    Q,
    queueCreated(Q, T(0)),
    prSubmitted(1, T(1)),
    prSubmitted(2, T(2)),
    prCancelled(1, T(3)),
    prCancelled(2, T(4)),
    queueDeleted(T(5)),
  );

describe('queue history pages', () => {
  it('when a page size is given, then pages follow each other through next_page_token', () => {
    const first = historyPage(Q, stream(), { page_query: { page_size: 4 } });
    expect(first.events.map((e) => e.revision)).toEqual([0, 1, 2, 3]);
    expect(first.page).toMatchObject({ total_rows: 6, total_pages: 2, page_index: 1 });
    const second = historyPage(Q, stream(), { page_query: { page_size: 4, page_token: first.page.next_page_token } });
    expect(second.events.map((e) => e.revision)).toEqual([4, 5]);
    expect(second.page.next_page_token).toBe('');
  });

  it('when a token is used for another queue or time range, then PAGE_TOKEN_MISMATCH', () => {
    const token = historyPage(Q, stream(), { page_query: { page_size: 2 } }).page.next_page_token;
    expect(() => historyPage(testQueueId('other'), stream(), { page_query: { page_token: token } })).toThrow(PageQueryError);
    expect(() => historyPage(Q, stream(), { since: T(1), page_query: { page_token: token } })).toThrow(
      expect.objectContaining({ code: 'PAGE_TOKEN_MISMATCH' }),
    );
  });

  it('when since and until are given, then the range is half-open', () => {
    expect(historyPage(Q, stream(), { since: T(1), until: T(3) }).events.map((e) => e.type)).toEqual(['PrSubmitted', 'PrSubmitted']);
  });

  it('when an event carries a reason, then the entry shows it; otherwise null', () => {
    const [created, submitted] = historyPage(Q, stream(), {}).events;
    expect(created).toMatchObject({ reason: null, actor: 'test', time: T(0) });
    expect(submitted).toMatchObject({ reason: 'API_REQUESTED', prNumber: 1 });
  });
});

describe('replay', () => {
  const entries = () => historyPage(Q, stream(), {}).events;

  it('when replayed between two events, then the queue holds what the earlier ones made', () => {
    const at2 = replayQueue(entries(), new Date(Date.parse(T(2)) + 30_000).toISOString());
    expect((at2?.enqueuedPullRequests as { number: number }[]).map((p) => p.number)).toEqual([1, 2]);
    const at3 = replayQueue(entries(), T(3));
    expect((at3?.enqueuedPullRequests as { number: number }[]).map((p) => p.number)).toEqual([2]);
  });

  it('when replayed before creation or after deletion, then there is no queue', () => {
    expect(replayQueue(entries(), '2026-03-01T08:00:00Z')).toBeNull();
    expect(replayQueue(entries(), T(6))).toBeNull();
  });
});

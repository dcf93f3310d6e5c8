import type { RecordedEvent } from '@railyard/eventstore';
import { dashboardLinks, WebhookMapper } from './mapping';
import type { WebhookMessage } from './messages';
import { slackMessageOf } from './slack';
import { trunkSchemaProblem, typesOf } from './testing/log';
import { caseOf, TEST_ID, TestsLogBuilder } from './testing/tests-log';

const mapAll = (
  events: RecordedEvent[],
  o: { tests?: boolean; blobs?: Map<string, ReturnType<typeof caseOf>[]> } = {},
): WebhookMessage[] => {
  const mapper = new WebhookMapper(dashboardLinks('https://railyard.example.com'), o.tests === false ? { tests: false } : {});
  return events.flatMap((e) => {
    const digest = (e.data as { cases?: { digest?: string } }).cases?.digest;
    return mapper.apply(e, digest ? o.blobs?.get(digest) : undefined);
  });
};

const expectAllValid = (messages: WebhookMessage[]): void => {
  for (const m of messages)
    expect({ type: m.type, problem: trunkSchemaProblem(m.type, m.payload) }).toEqual({ type: m.type, problem: undefined });
};

const flaky = (log: TestsLogBuilder, hoursLater?: number): TestsLogBuilder =>
  log.statusChanged('FLAKY', { impacted: 2, corroborated: true, ...(hoursLater !== undefined ? { hoursLater } : {}) });

describe('WebhookMapper on the test-health streams', () => {
  it('when a test turns flaky, then test_case.status_changed names it with its rates and failures, valid against Trunk', () => {
    const log = new TestsLogBuilder()
      .upload('passed')
      .upload('failed', { failure: 'expected 200\n  at charge (checkout.ts:3)' })
      .upload('passed')
      .upload('failed', { failure: 'expected 200\n  at charge (checkout.ts:9)' });
    const messages = mapAll(flaky(log).events);
    expect(typesOf(messages)).toEqual(['test_case.status_changed']);
    expectAllValid(messages);
    expect(messages[0]?.payload).toMatchObject({
      test_case: {
        id: TEST_ID,
        name: 'charges the card',
        classname: 'CheckoutTest',
        file_path: 'test/checkout.test.ts',
        parent: 'checkout',
        repository: { html_url: 'https://github.com/acme/rocket' },
        html_url: `https://railyard.example.com/repos/github.com/acme/rocket/tests/${TEST_ID}`,
        status: { value: 'flaky', timestamp: '2026-12-01T03:00:00.000Z' },
        most_common_failures: [{ summary: 'expected 200', occurrence_count: 2, last_occurrence: '2026-12-01T03:00:00.000Z' }],
        failure_rate_last_7d: 0.5,
        failure_rate_last_24h: 0.5,
        codeowners: [],
        pull_requests_impacted_last_7d: 2,
        quarantined: true,
      },
      status_change: { previous_status: 'healthy', current_status: { value: 'flaky', reason: 'failure_rate: 2 of 4 runs failed' } },
    });
    expect(messages[0]?.repo).toEqual({ host: 'github.com', owner: 'acme', name: 'rocket' });
  });

  it('when runs leave the 24-hour window, then the 24-hour rate drops and the 7-day rate keeps them', () => {
    const log = new TestsLogBuilder().upload('failed', { hoursLater: 0 }).upload('passed', { hoursLater: 30 });
    const [m] = mapAll(flaky(log, 31).events);
    expect(m?.payload.test_case).toMatchObject({ failure_rate_last_7d: 0.5, failure_rate_last_24h: 0 });
  });

  it('when an upload looks like an outage, then it does not count in the rates', () => {
    const log = new TestsLogBuilder().upload('passed').upload('failed', { testCount: 1000 });
    (log.events[1]!.data as { stats: { failedCount: number } }).stats.failedCount = 1000;
    const [m] = mapAll(flaky(log).events);
    expect(m?.payload.test_case).toMatchObject({ failure_rate_last_7d: 0 });
  });

  it('when an admin sets a quarantine override, then quarantining_setting_changed says who, from what to what, valid against Trunk', () => {
    const log = new TestsLogBuilder().upload('passed').add('QuarantineOverrideSet', {
      repo: { host: 'github.com', owner: 'acme', name: 'rocket' },
      testId: TEST_ID,
      override: 'always',
      previous: null,
      reason: 'ticket 12',
    });
    const messages = mapAll(log.events);
    expect(typesOf(messages)).toEqual(['test_case.quarantining_setting_changed']);
    expectAllValid(messages);
    expect(messages[0]?.payload).toMatchObject({
      test_case: { quarantined: true, status: { value: 'healthy' } },
      quarantine_setting_changed: {
        actor: { full_name: 'admin-token', email: '' },
        reason: 'ticket 12',
        previous_quarantining_setting: 'UNSPECIFIED',
        updated_quarantining_setting: 'ALWAYS_QUARANTINE',
      },
    });
  });

  it('when the cases are in the blob store, then they name the test; unreadable, then its id does and it stays valid', () => {
    const digest = 'd'.repeat(64);
    const log = flaky(new TestsLogBuilder().upload('failed', { blob: digest }));
    const named = mapAll(log.events, { blobs: new Map([[digest, [caseOf('failed', 'boom')]]]) });
    expect(named[0]?.payload.test_case).toMatchObject({ name: 'charges the card', failure_rate_last_7d: 1 });
    const unnamed = mapAll(log.events);
    expect(unnamed[0]?.payload.test_case).toMatchObject({ name: TEST_ID, failure_rate_last_7d: 0 });
    expectAllValid([...named, ...unnamed]);
  });

  it('when the same log is mapped twice, then the messages are identical (ids and payloads)', () => {
    const log = flaky(new TestsLogBuilder().upload('failed', { failure: 'x' }).upload('passed'));
    expect(mapAll(log.events)).toEqual(mapAll(log.events));
    expect(mapAll(log.events).map((m) => [m.eventId, m.index])).toEqual([['tev-3', 0]]);
  });

  it('when the mapper is told to skip tests, then the test-health streams give nothing', () => {
    expect(mapAll(flaky(new TestsLogBuilder().upload('failed')).events, { tests: false })).toEqual([]);
  });

  it('when a test turns flaky, then Slack says which test, what it is now and links the test’s page', () => {
    const [m] = mapAll(flaky(new TestsLogBuilder().upload('failed')).events);
    expect(slackMessageOf(m!)?.text).toBe(
      `:test_tube: Test <https://railyard.example.com/repos/github.com/acme/rocket/tests/${TEST_ID}|charges the card> in acme/rocket is now flaky ` +
        '(was healthy): failure_rate: 2 of 4 runs failed; quarantined',
    );
  });
});

import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { emptyFacts, type RepoRef } from '@railyard/domain';
import { createEventStore, type EventStore } from '@railyard/eventstore';
import {
  caseRecordsOf,
  testsStreamOf,
  TEST_HEALTH_EVENT_SCHEMA_VERSION,
  type CaseRecord,
  type TestHealthEvent,
} from '@railyard/testhealth';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { TestResultsIndex } from './test-health-facts';

const REPO: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const SHA = 'c'.repeat(40);
const OTHER_SHA = 'd'.repeat(40);
const AT = '2026-03-01T10:00:00.000Z';

const caseOf = (name: string, status: 'passed' | 'failed' | 'flaky'): CaseRecord => {
  const [record] = caseRecordsOf(
    [
      {
        name,
        classname: 'suite',
        file: `src/${name}.test.ts`,
        parent: 'suite',
        variant: '',
        status,
        durationMs: 1,
        attempts: status === 'flaky' ? 2 : 1,
        failedAttempts: status === 'passed' ? 0 : 1,
      },
    ],
    { orgSlug: 'acme', repo: REPO },
  );
  return record as CaseRecord;
};

const upload = (sha: string, cases: CaseRecord[]): TestHealthEvent => ({
  type: 'TestResultsUploaded',
  data: {
    uploadId: randomUUID(),
    repo: REPO,
    orgSlug: 'acme',
    branch: 'railyard-merge/pr-1/run',
    commitSha: sha,
    files: [{ name: 'junit.xml', bytes: 100 }],
    stats: { testCount: cases.length, failedCount: cases.filter((c) => c.outcome === 'failed').length },
    caseCount: cases.length,
    warnings: [],
    suiteFailures: [],
    cases: { inline: cases },
    at: AT,
  },
});

const statusChanged = (testId: string, status: 'FLAKY' | 'BROKEN' | 'HEALTHY', corroborated = status === 'FLAKY'): TestHealthEvent => ({
  type: 'TestStatusChanged',
  data: {
    repo: REPO,
    testId,
    status,
    reason: 'test',
    since: AT,
    previous: { status: 'HEALTHY', reason: 'healthy', since: AT },
    monitors: [],
    pullRequestsImpactedLast7d: 0,
    basis: { revision: 0 },
    corroborated,
    at: AT,
  },
});

let dir: string;
let store: EventStore;

const append = async (...events: TestHealthEvent[]): Promise<void> => {
  await store.append(
    testsStreamOf(REPO),
    events.map((e) => ({
      eventId: randomUUID(),
      type: e.type,
      data: e.data,
      metadata: { schemaVersion: TEST_HEALTH_EVENT_SCHEMA_VERSION, actor: 'test', correlationId: randomUUID(), at: AT },
    })),
    'any',
  );
};

beforeEach(async () => {
  dir = await makeTempDir('railyard-test-results-');
  store = await createEventStore({ kind: 'sqlite', file: path.join(dir, 'events.db') });
});

afterEach(async () => {
  await store.close();
  await removeTempDir(dir);
});

describe('TestResultsIndex (the test results of failing runs, from the tests stream)', () => {
  const seen = caseOf('login works', 'passed');
  const totals = caseOf('totals add up', 'passed');
  const slow = caseOf('sometimes slow', 'passed');

  it('when nothing was uploaded for a commit, then nothing is known of it', async () => {
    await append(upload(OTHER_SHA, [{ ...seen, outcome: 'failed' }]));
    expect(await new TestResultsIndex(store).failingTests(REPO, SHA)).toBeUndefined();
  });

  it('when tests failed on a commit, then each comes with its health: flaky, quarantined, broken, healthy, new', async () => {
    // An earlier upload makes the first four known; a flaky-status test is auto-quarantined unless overridden.
    await append(upload(OTHER_SHA, [seen, totals, slow, caseOf('always red', 'passed')]));
    await append(
      statusChanged(seen.id, 'FLAKY'),
      statusChanged(slow.id, 'FLAKY'),
      statusChanged(caseOf('always red', 'passed').id, 'BROKEN'),
    );
    await append({
      type: 'QuarantineOverrideSet',
      data: { repo: REPO, testId: seen.id, override: 'never', previous: null, at: AT },
    });
    await append(
      upload(SHA, [
        { ...seen, outcome: 'failed' },
        { ...slow, outcome: 'failed' },
        { ...caseOf('always red', 'passed'), outcome: 'failed' },
        { ...totals, outcome: 'failed' },
        caseOf('brand new', 'failed'),
        caseOf('retried inside the run', 'flaky'),
      ]),
    );
    const failing = await new TestResultsIndex(store).failingTests(REPO, SHA);
    expect(failing).toEqual([
      { name: 'login works', health: 'flaky' },
      { name: 'sometimes slow', health: 'quarantined' },
      { name: 'always red', health: 'broken' },
      { name: 'totals add up', health: 'healthy' },
      { name: 'brand new', health: 'new' },
    ]);
  });

  it('when a failing test is FLAKY only on the evidence of one pull request (not corroborated), then it is flaky, never quarantined', async () => {
    await append(upload(OTHER_SHA, [slow]));
    await append(statusChanged(slow.id, 'FLAKY', false));
    await append(upload(SHA, [{ ...slow, outcome: 'failed' }]));
    expect(await new TestResultsIndex(store).failingTests(REPO, SHA)).toEqual([{ name: 'sometimes slow', health: 'flaky' }]);
  });

  it('when more is recorded after a lookup, then the next lookup folds only the new events and sees them', async () => {
    const index = new TestResultsIndex(store);
    await append(upload(OTHER_SHA, [seen]));
    expect(await index.failingTests(REPO, SHA)).toBeUndefined();
    await append(upload(SHA, [{ ...seen, outcome: 'failed' }]));
    expect(await index.failingTests(REPO, SHA)).toEqual([{ name: 'login works', health: 'healthy' }]);
    await append(statusChanged(seen.id, 'FLAKY'));
    expect(await index.failingTests(REPO, SHA)).toEqual([{ name: 'login works', health: 'quarantined' }]);
  });

  it('when the only failing cases passed on a retry inside the run, then no failing test is reported', async () => {
    await append(upload(SHA, [caseOf('retried inside the run', 'flaky')]));
    expect(await new TestResultsIndex(store).failingTests(REPO, SHA)).toBeUndefined();
    expect(emptyFacts().testResults).toBeUndefined();
  });
});

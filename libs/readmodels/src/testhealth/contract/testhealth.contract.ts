import { gzipSync } from 'node:zlib';
import { MemoryBlobStore, type BlobStore, type RecordedEvent } from '@railyard/eventstore';
import { encodePageToken, decodePageToken, type PageCursor, type TestHealthEvent } from '@railyard/testhealth';
import type { TestDoc } from '../projection/docs';
import type { TestHealthReadModels } from '../port';
import { unhealthySortKey, quarantinedSortKey, type IndexName } from '../projection/indexes';
import { caseOf, TestHealthEventFactory, TH_REPO, TH_REPO_ID, uploadOf } from '../../testing/testhealth';

export interface ContractOptions {
  maxRunsPerTest?: number;
  retentionDays?: number;
}

export type MakeStore = (blobs: BlobStore, options: ContractOptions) => Promise<TestHealthReadModels> | TestHealthReadModels;

const T = (day: number, hour = 9): string => new Date(Date.UTC(2026, 2, day, hour)).toISOString();

const statusChanged = (
  testId: string,
  status: 'HEALTHY' | 'FLAKY' | 'BROKEN',
  at: string,
  opts: { revision?: number; impacted?: number; since?: string; corroborated?: boolean } = {},
): TestHealthEvent => ({
  type: 'TestStatusChanged',
  data: {
    repo: TH_REPO,
    testId,
    previous: { status: 'HEALTHY', reason: 'healthy: no monitor active', since: at },
    status,
    reason: `${status.toLowerCase()}: scripted`,
    since: opts.since ?? at,
    monitors: [],
    pullRequestsImpactedLast7d: opts.impacted ?? 0,
    basis: { revision: opts.revision ?? 0 },
    corroborated: opts.corroborated ?? status === 'FLAKY',
    at,
  },
});

const override = (testId: string, value: 'always' | 'never' | null, at: string): TestHealthEvent => ({
  type: 'QuarantineOverrideSet',
  data: { repo: TH_REPO, testId, override: value, previous: null, at },
});

const SECRET = 'contract-secret';
const cursor = (c: PageCursor): PageCursor => decodePageToken(encodePageToken(c, SECRET), SECRET, c.scope);

/** Walks a listing page by page with `after` cursors, as a client following next tokens. */
const walk = async (store: TestHealthReadModels, index: IndexName, size: number): Promise<TestDoc[]> => {
  const seen: TestDoc[] = [];
  let page = await store.listPage(TH_REPO_ID, index, size);
  for (;;) {
    seen.push(...page.rows);
    const last = page.rows[page.rows.length - 1];
    if (!last || page.start + page.rows.length >= page.totalRows) return seen;
    const key = index === 'quarantined' ? quarantinedSortKey(last) : unhealthySortKey(last);
    page = await store.listPage(TH_REPO_ID, index, size, cursor({ kind: 'after', key, index: 2, scope: 's' }));
  }
};

/**
 * What every TestHealthReadModels adapter must do. `make` returns a store on an isolated namespace
 * reading blobs from the store it is given; the suite resets it before each test.
 */
export const testHealthContract = (name: string, make: MakeStore): void => {
  describe(`TestHealthReadModels contract: ${name}`, () => {
    let blobs: BlobStore;
    let store: TestHealthReadModels;
    let factory: TestHealthEventFactory;

    const open = async (options: ContractOptions = {}) => {
      store = await make(blobs, options);
      await store.reset();
    };

    beforeEach(async () => {
      blobs = new MemoryBlobStore();
      factory = new TestHealthEventFactory();
      await open();
    });

    afterEach(async () => {
      await store.reset();
      await store.close();
    });

    it('when an upload names new tests, then each becomes a HEALTHY test with one run joined to its upload', async () => {
      // given
      const a = caseOf('adds', 'passed');
      const b = caseOf('rounds', 'failed');
      const events = factory.record(
        TH_REPO,
        uploadOf([a, b], T(1), { branch: 'feature', prNumber: 7, ciJob: 'unit', treeSha: 'b'.repeat(40), reporter: 'token:ci' }),
      );

      // when
      await store.apply(events);

      // then
      const [docA, docB] = await store.getTests(TH_REPO_ID, [a.id, b.id]);
      expect(docA).toMatchObject({
        id: a.id,
        name: 'adds',
        file: 'src/adds.test.ts',
        status: 'HEALTHY',
        firstSeenAt: T(1),
        lastFailedAt: null,
        quarantined: false,
        lastRevision: 0,
      });
      expect(docB).toMatchObject({ lastFailedAt: T(1), since: T(1), reason: 'healthy: no monitor active' });
      const [history] = await store.getHistories(TH_REPO_ID, [b.id]);
      expect(history).toEqual({
        revision: 0,
        runs: [
          {
            at: T(1),
            commitSha: 'a'.repeat(40),
            treeSha: 'b'.repeat(40),
            branch: 'feature',
            prNumber: 7,
            ciJob: 'unit',
            outcome: 'failed',
            upload: { testCount: 2, failedCount: 1 },
            reporter: 'token:ci',
          },
        ],
      });
      expect(await store.checkpoint()).toBe(1n);
      expect(await store.repoIds()).toEqual([TH_REPO_ID]);
    });

    it('when an upload from before uploaders were recorded names a test run, then its runs are the local CI’s; without one, nobody’s', async () => {
      // given
      const a = caseOf('adds', 'failed');
      const events = factory.record(TH_REPO, uploadOf([a], T(1), { testRunId: 'run-1' }), uploadOf([a], T(2)));

      // when
      await store.apply(events);

      // then
      const [history] = await store.getHistories(TH_REPO_ID, [a.id]);
      expect(history?.runs.map((r) => r.reporter)).toEqual(['local-ci', undefined]);
    });

    it('when an upload keeps its cases in a blob, then they are read from the blob store', async () => {
      // given
      const cases = [caseOf('one', 'passed'), caseOf('two', 'flaky')];
      const digest = await blobs.put(gzipSync(Buffer.from(JSON.stringify(cases))));

      // when
      await store.apply(factory.record(TH_REPO, uploadOf({ digest, count: 2 }, T(1))));

      // then
      const docs = await store.getTests(
        TH_REPO_ID,
        cases.map((c) => c.id),
      );
      expect(docs.map((d) => d?.name)).toEqual(['one', 'two']);
      expect((await store.getHistories(TH_REPO_ID, [cases[1]?.id ?? '']))[0]?.runs.map((r) => r.outcome)).toEqual(['flaky']);
    });

    it('when a skipped case is uploaded, then the test is known but no run is recorded for it', async () => {
      const c = caseOf('later', 'skipped');
      await store.apply(factory.record(TH_REPO, uploadOf([c], T(1))));

      expect(await store.getTest(TH_REPO_ID, c.id)).toMatchObject({ name: 'later', lastRevision: -1 });
      expect(await store.getHistories(TH_REPO_ID, [c.id])).toEqual([{ runs: [], revision: -1 }]);
    });

    it('when the same batch is applied twice, then nothing changes the second time', async () => {
      // given
      const c = caseOf('twice', 'failed');
      const events = [
        ...factory.record(TH_REPO, uploadOf([c], T(1)), uploadOf([c], T(2))),
        ...factory.record(TH_REPO, statusChanged(c.id, 'FLAKY', T(2), { revision: 1 })),
      ];
      await store.apply(events);
      const before = await store.getTest(TH_REPO_ID, c.id);

      // when
      await store.apply(events);
      await store.apply(events.slice(1));

      // then
      expect(await store.getTest(TH_REPO_ID, c.id)).toEqual(before);
      expect((await store.getHistories(TH_REPO_ID, [c.id]))[0]?.runs).toHaveLength(2);
      expect((await store.listPage(TH_REPO_ID, 'flaky', 10)).totalRows).toBe(1);
    });

    it('when the history is applied one event at a time or in one batch, then the models are the same', async () => {
      // given
      const a = caseOf('a', 'failed');
      const b = caseOf('b', 'passed');
      const events = [
        ...factory.record(TH_REPO, uploadOf([a, b], T(1))),
        ...factory.record(TH_REPO, statusChanged(a.id, 'BROKEN', T(1, 10), { impacted: 2 })),
        ...factory.record(TH_REPO, uploadOf([a, { ...b, outcome: 'failed' }], T(2))),
        ...factory.record(TH_REPO, override(b.id, 'always', T(2, 10))),
      ];
      await store.apply(events);
      const whole = { docs: await store.getTests(TH_REPO_ID, [a.id, b.id]), histories: await store.getHistories(TH_REPO_ID, [a.id, b.id]) };

      // when
      await store.reset();
      for (const e of events) await store.apply([e]);

      // then
      expect({
        docs: await store.getTests(TH_REPO_ID, [a.id, b.id]),
        histories: await store.getHistories(TH_REPO_ID, [a.id, b.id]),
      }).toEqual(whole);
    });

    it('when events of other streams are in the batch, then they are skipped and the checkpoint still moves past them', async () => {
      const c = caseOf('c', 'passed');
      const events = [
        ...factory.recordOn('queue-x', { type: 'QueueCreated', data: { at: T(1) } }),
        ...factory.record(TH_REPO, uploadOf([c], T(1))),
        ...factory.recordOn('queue-x', { type: 'QueuePaused', data: { at: T(1) } }),
      ];

      await store.apply(events);

      expect(await store.checkpoint()).toBe(3n);
      expect(await store.getTest(TH_REPO_ID, c.id)).not.toBeNull();
    });

    it('when a test turns FLAKY, then it is listed as flaky and auto-quarantined from that moment', async () => {
      // given
      const c = caseOf('flaps', 'flaky');
      await store.apply(factory.record(TH_REPO, uploadOf([c], T(1))));

      // when
      await store.apply(factory.record(TH_REPO, statusChanged(c.id, 'FLAKY', T(1, 11), { impacted: 3, since: T(1) })));

      // then
      expect(await store.getTest(TH_REPO_ID, c.id)).toMatchObject({
        status: 'FLAKY',
        since: T(1),
        statusUpdatedAt: T(1, 11),
        pullRequestsImpactedLast7d: 3,
        quarantined: true,
        quarantinedAt: T(1, 11),
      });
      expect((await store.listPage(TH_REPO_ID, 'flaky', 10)).rows.map((d) => d.id)).toEqual([c.id]);
      expect((await store.listPage(TH_REPO_ID, 'broken', 10)).totalRows).toBe(0);
      expect((await store.listPage(TH_REPO_ID, 'quarantined', 10)).rows.map((d) => d.id)).toEqual([c.id]);
    });

    it('when a test turns FLAKY on the evidence of one pull request only (not corroborated), then it is listed as flaky and not quarantined', async () => {
      const c = caseOf('flaps once', 'flaky');
      await store.apply(factory.record(TH_REPO, uploadOf([c], T(1)), statusChanged(c.id, 'FLAKY', T(1, 11), { corroborated: false })));

      expect(await store.getTest(TH_REPO_ID, c.id)).toMatchObject({ status: 'FLAKY', corroborated: false, quarantined: false });
      expect((await store.listPage(TH_REPO_ID, 'flaky', 10)).rows.map((d) => d.id)).toEqual([c.id]);
      expect((await store.listPage(TH_REPO_ID, 'quarantined', 10)).totalRows).toBe(0);

      // Corroborated later (another pull request's runs): quarantined from then on.
      await store.apply(factory.record(TH_REPO, statusChanged(c.id, 'FLAKY', T(1, 12), { revision: 1, corroborated: true })));
      expect(await store.getTest(TH_REPO_ID, c.id)).toMatchObject({ corroborated: true, quarantined: true, quarantinedAt: T(1, 12) });
    });

    it('when a test turns BROKEN, then it is listed as broken and not quarantined', async () => {
      const c = caseOf('breaks', 'failed');
      await store.apply(factory.record(TH_REPO, uploadOf([c], T(1)), statusChanged(c.id, 'BROKEN', T(1, 10))));

      expect(await store.getTest(TH_REPO_ID, c.id)).toMatchObject({ status: 'BROKEN', quarantined: false, quarantinedAt: null });
      expect((await store.listPage(TH_REPO_ID, 'broken', 10)).totalRows).toBe(1);
      expect((await store.listPage(TH_REPO_ID, 'quarantined', 10)).totalRows).toBe(0);
    });

    it('when an evaluation based on older runs arrives after a newer one, then it is ignored', async () => {
      const c = caseOf('late', 'failed');
      await store.apply(
        factory.record(
          TH_REPO,
          uploadOf([c], T(1)),
          uploadOf([c], T(2)),
          statusChanged(c.id, 'BROKEN', T(2, 10), { revision: 1 }),
          statusChanged(c.id, 'FLAKY', T(2, 11), { revision: 0 }),
        ),
      );

      expect(await store.getTest(TH_REPO_ID, c.id)).toMatchObject({ status: 'BROKEN', basis: { revision: 1, at: T(2, 10) } });
      expect((await store.listPage(TH_REPO_ID, 'flaky', 10)).totalRows).toBe(0);
    });

    it('when the impact changes alone, then the test moves in the unhealthy order', async () => {
      // given two flaky tests, the second more impacted
      const a = caseOf('a', 'flaky');
      const b = caseOf('b', 'flaky');
      await store.apply(
        factory.record(
          TH_REPO,
          uploadOf([a, b], T(1)),
          statusChanged(a.id, 'FLAKY', T(1, 10), { impacted: 1 }),
          statusChanged(b.id, 'FLAKY', T(1, 10), { impacted: 2 }),
        ),
      );
      expect((await store.listPage(TH_REPO_ID, 'flaky', 10)).rows.map((d) => d.name)).toEqual(['b', 'a']);

      // when
      await store.apply(
        factory.record(TH_REPO, {
          type: 'TestImpactChanged',
          data: { repo: TH_REPO, testId: a.id, previous: 1, pullRequestsImpactedLast7d: 5, basis: { revision: 0 }, at: T(1, 12) },
        }),
      );

      // then
      const rows = (await store.listPage(TH_REPO_ID, 'flaky', 10)).rows;
      expect(rows.map((d) => [d.name, d.pullRequestsImpactedLast7d])).toEqual([
        ['a', 5],
        ['b', 2],
      ]);
    });

    it('when overrides are set, then never wins over FLAKY, always quarantines a healthy test, and clearing returns to auto', async () => {
      // given
      const flaky = caseOf('flaky', 'flaky');
      const healthy = caseOf('healthy', 'passed');
      await store.apply(factory.record(TH_REPO, uploadOf([flaky, healthy], T(1)), statusChanged(flaky.id, 'FLAKY', T(1, 10))));

      // when
      await store.apply(factory.record(TH_REPO, override(flaky.id, 'never', T(2)), override(healthy.id, 'always', T(2, 1))));

      // then
      expect(await store.getTest(TH_REPO_ID, flaky.id)).toMatchObject({
        override: 'never',
        overrideBy: 'tester',
        quarantined: false,
        quarantinedAt: null,
      });
      expect(await store.getTest(TH_REPO_ID, healthy.id)).toMatchObject({ override: 'always', quarantined: true, quarantinedAt: T(2, 1) });
      expect((await store.listPage(TH_REPO_ID, 'quarantined', 10)).rows.map((d) => d.name)).toEqual(['healthy']);

      // when cleared
      await store.apply(factory.record(TH_REPO, override(flaky.id, null, T(3)), override(healthy.id, null, T(3))));

      // then
      expect((await store.listPage(TH_REPO_ID, 'quarantined', 10)).rows.map((d) => [d.name, d.quarantinedAt])).toEqual([['flaky', T(3)]]);
    });

    it('when a single-test event names an unknown test, then it changes nothing', async () => {
      await store.apply(
        factory.record(
          TH_REPO,
          statusChanged('6ba7b811-9dad-51d1-80b4-00c04fd430c8', 'FLAKY', T(1)),
          override('6ba7b811-9dad-51d1-80b4-00c04fd430c8', 'always', T(1)),
        ),
      );

      expect(await store.getTest(TH_REPO_ID, '6ba7b811-9dad-51d1-80b4-00c04fd430c8')).toBeNull();
      expect((await store.listPage(TH_REPO_ID, 'flaky', 10)).totalRows).toBe(0);
      expect(await store.checkpoint()).toBe(2n);
    });

    it('when a ticket is linked, then the test carries its URL', async () => {
      const c = caseOf('ticketed', 'passed');
      await store.apply(
        factory.record(TH_REPO, uploadOf([c], T(1)), {
          type: 'TestTicketLinked',
          data: { repo: TH_REPO, testId: c.id, htmlUrl: 'https://tracker.test/T-1', at: T(1) },
        }),
      );

      expect(await store.getTest(TH_REPO_ID, c.id)).toMatchObject({ ticketUrl: 'https://tracker.test/T-1' });
    });

    it('when a CI run is recorded, then it can be read by its run id, and recording it again changes nothing', async () => {
      const run = {
        runId: 'b6f2a1c4-5d3e-5f7a-8b9c-0d1e2f3a4b5c',
        ciJobName: 'unit',
        provider: 'github',
        runStart: T(1, 9),
        runEnd: T(1, 10),
        branch: 'main',
        commitSha: 'a'.repeat(40),
        attempt: 1,
        conclusion: 'failure' as const,
        conclusionCause: 'ci' as const,
      };
      const recorded: TestHealthEvent = { type: 'CiRunRecorded', data: { repo: TH_REPO, ...run, at: T(1, 11) } };
      await store.apply(factory.record(TH_REPO, recorded));
      await store.apply(factory.record(TH_REPO, recorded));

      expect(await store.getCiRun(TH_REPO_ID, run.runId)).toEqual({ ...run, at: T(1, 11) });
      expect(await store.getCiRun(TH_REPO_ID, 'c6f2a1c4-5d3e-5f7a-8b9c-0d1e2f3a4b5c')).toBeNull();
      // A repository with CI runs and no upload has no tests to re-evaluate.
      expect(await store.repoIds()).toEqual([]);
    });

    it('when a listing is walked page by page, then every row comes once in (impact desc, id) order, and before and last cursors agree', async () => {
      // given 23 flaky tests with impacts 0..3
      const cases = Array.from({ length: 23 }, (_, i) => caseOf(`t${i}`, 'flaky'));
      await store.apply(
        factory.record(TH_REPO, uploadOf(cases, T(1)), ...cases.map((c, i) => statusChanged(c.id, 'FLAKY', T(1, 10), { impacted: i % 4 }))),
      );
      const expected = (
        await store.getTests(
          TH_REPO_ID,
          cases.map((c) => c.id),
        )
      )
        .filter((d): d is TestDoc => d !== null)
        .sort((x, y) => y.pullRequestsImpactedLast7d - x.pullRequestsImpactedLast7d || (x.id < y.id ? -1 : 1))
        .map((d) => d.id);

      // when
      const walked = (await walk(store, 'flaky', 5)).map((d) => d.id);
      const last = await store.listPage(TH_REPO_ID, 'flaky', 5, cursor({ kind: 'last', scope: 's' }));
      const firstOfLast = last.rows[0] as TestDoc;
      const beforeLast = await store.listPage(
        TH_REPO_ID,
        'flaky',
        5,
        cursor({ kind: 'before', key: unhealthySortKey(firstOfLast), index: 4, scope: 's' }),
      );
      const nearStart = await store.listPage(
        TH_REPO_ID,
        'flaky',
        5,
        cursor({
          kind: 'before',
          key: unhealthySortKey({ id: expected[2] as string, pullRequestsImpactedLast7d: 3 }),
          index: 1,
          scope: 's',
        }),
      );

      // then
      expect(walked).toEqual(expected);
      expect(last).toMatchObject({ totalRows: 23, start: 20 });
      expect(last.rows.map((d) => d.id)).toEqual(expected.slice(20));
      expect(beforeLast.start).toBe(15);
      expect(beforeLast.rows.map((d) => d.id)).toEqual(expected.slice(15, 20));
      expect(nearStart.start).toBe(0);
      expect(nearStart.rows.map((d) => d.id)).toEqual(expected.slice(0, 5));
    });

    it('when tests are added between fetches, then a walk with after cursors still sees every original row once', async () => {
      // given
      const first = Array.from({ length: 12 }, (_, i) => caseOf(`first${i}`, 'flaky'));
      await store.apply(
        factory.record(TH_REPO, uploadOf(first, T(1)), ...first.map((c) => statusChanged(c.id, 'FLAKY', T(1, 10), { impacted: 1 }))),
      );
      const page1 = await store.listPage(TH_REPO_ID, 'flaky', 5);

      // when tests land before and after the cursor
      const extra = [caseOf('top', 'flaky'), caseOf('bottom', 'flaky')];
      await store.apply(
        factory.record(
          TH_REPO,
          uploadOf(extra, T(2)),
          statusChanged(extra[0]?.id ?? '', 'FLAKY', T(2), { impacted: 9 }),
          statusChanged(extra[1]?.id ?? '', 'FLAKY', T(2), { impacted: 0 }),
        ),
      );
      const seen = [...page1.rows];
      let page = page1;
      while (page.rows.length > 0 && page.start + page.rows.length < page.totalRows) {
        const last = page.rows[page.rows.length - 1] as TestDoc;
        page = await store.listPage(TH_REPO_ID, 'flaky', 5, cursor({ kind: 'after', key: unhealthySortKey(last), index: 2, scope: 's' }));
        seen.push(...page.rows);
      }

      // then
      const names = seen.map((d) => d.name);
      expect(new Set(names).size).toBe(names.length);
      expect(names.filter((n) => n.startsWith('first')).sort()).toEqual(first.map((c) => c.name).sort());
      expect(names).toContain('bottom');
      expect(names).not.toContain('top');
    });

    it('when a quarantined listing is read, then the most recently quarantined come first', async () => {
      const cases = ['q1', 'q2', 'q3'].map((n) => caseOf(n, 'passed'));
      await store.apply(
        factory.record(
          TH_REPO,
          uploadOf(cases, T(1)),
          override(cases[1]?.id ?? '', 'always', T(2)),
          override(cases[0]?.id ?? '', 'always', T(3)),
          override(cases[2]?.id ?? '', 'always', T(1, 12)),
        ),
      );

      expect((await walk(store, 'quarantined', 2)).map((d) => d.name)).toEqual(['q1', 'q2', 'q3']);
    });

    it('when a test has more runs than the cap, then only the newest are kept', async () => {
      await store.close();
      await open({ maxRunsPerTest: 3 });
      const c = caseOf('capped', 'passed');
      const outcomes = ['failed', 'passed', 'flaky', 'passed', 'failed'] as const;

      await store.apply(factory.record(TH_REPO, ...outcomes.map((o, i) => uploadOf([{ ...c, outcome: o }], T(1, i)))));

      const [history] = await store.getHistories(TH_REPO_ID, [c.id]);
      expect(history?.runs.map((r) => r.outcome)).toEqual(['flaky', 'passed', 'failed']);
      expect(history?.revision).toBe(4);
    });

    it('when uploads fall out of the retention window, then their runs leave the history', async () => {
      await store.close();
      await open({ retentionDays: 10 });
      const c = caseOf('old', 'failed');

      await store.apply(
        factory.record(
          TH_REPO,
          uploadOf([c], T(1)),
          uploadOf([{ ...c, outcome: 'passed' }], T(5)),
          uploadOf([{ ...c, outcome: 'passed' }], T(14)),
        ),
      );

      const [history] = await store.getHistories(TH_REPO_ID, [c.id]);
      expect(history?.runs.map((r) => r.at)).toEqual([T(5), T(14)]);
    });

    it('when asked what to re-evaluate, then it names unhealthy tests and those that failed since the given time', async () => {
      const [recent, old, broken, fine] = [
        caseOf('recent', 'failed'),
        caseOf('old', 'failed'),
        caseOf('broken', 'passed'),
        caseOf('fine', 'passed'),
      ];
      await store.apply(
        factory.record(TH_REPO, uploadOf([old], T(1)), uploadOf([recent, broken, fine], T(20)), statusChanged(broken.id, 'BROKEN', T(20))),
      );

      const ids = await store.watchList(TH_REPO_ID, T(10));

      expect(new Set(ids)).toEqual(new Set([recent.id, broken.id]));
    });

    it('when reset, then every model and the checkpoint are forgotten', async () => {
      const c = caseOf('gone', 'flaky');
      await store.apply(factory.record(TH_REPO, uploadOf([c], T(1)), statusChanged(c.id, 'FLAKY', T(1))));

      await store.reset();

      expect(await store.checkpoint()).toBeNull();
      expect(await store.getTest(TH_REPO_ID, c.id)).toBeNull();
      expect((await store.listPage(TH_REPO_ID, 'flaky', 10)).totalRows).toBe(0);
      expect(await store.repoIds()).toEqual([]);
    });

    it('when waiting for a position, then it resolves true once a batch reaches it and false on timeout', async () => {
      const events: RecordedEvent[] = factory.record(TH_REPO, uploadOf([caseOf('w', 'passed')], T(1)));
      const waiting = store.waitFor(1n, 5_000);
      await store.apply(events);
      expect(await waiting).toBe(true);
      expect(await store.waitFor(99n, 20)).toBe(false);
    });
  });
};

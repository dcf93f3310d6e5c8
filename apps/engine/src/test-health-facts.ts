import {
  gatingConfigCommit,
  requiredOutcome,
  type FailingTest,
  type HostFacts,
  type QueueState,
  type RepoRef,
  type ReportedStatus,
  type RunTestResults,
  type TestHealth,
  type TestRun,
} from '@railyard/domain';
import type { BlobStore, EventStore, RecordedEvent } from '@railyard/eventstore';
import {
  casesOf,
  isQuarantined,
  testsStreamOf,
  type QuarantineOverrideSet,
  type TestResultsUploaded,
  type TestStatus,
  type TestStatusChanged,
} from '@railyard/testhealth';
import type { FactsSource } from '@railyard/queue-driver';

/** The failing cases one upload reported, with the stream revision that recorded it. */
interface Upload {
  revision: number;
  failing: { id: string; name: string }[];
}

/** What the engine keeps of one repository's `tests-<repoId>` stream, folded forward from `next`. */
interface RepoIndex {
  next: number;
  /** The last verdict recorded per test, with whether its flakiness is corroborated beyond one pull request. */
  status: Map<string, { status: TestStatus; corroborated: boolean }>;
  override: Map<string, 'always' | 'never'>;
  /** The revision of the upload that first reported each test: a test first seen in the failing upload is `new`. */
  firstSeen: Map<string, number>;
  /** Uploads per commit, oldest first; the oldest commits are dropped past `maxCommits`. */
  byCommit: Map<string, Upload[]>;
}

const emptyIndex = (): RepoIndex => ({ next: 0, status: new Map(), override: new Map(), firstSeen: new Map(), byCommit: new Map() });

/**
 * The test results the planner reads when a run fails (docs/engine.md, Flakes): the failing tests
 * of every JUnit upload recorded for the run's test commit, each with the health the test-health
 * service gives it now (quarantined, flaky, broken, healthy, or new). It folds the repository's
 * `tests-<repoId>` stream (docs/test-health.md §8) forward from where it stopped, so a lookup costs
 * only the events recorded since the last one; quarantine follows isQuarantined with the default
 * switches, as the CI check does without repository settings: a FLAKY test is quarantined only when
 * its flakiness is corroborated (docs/test-health.md §4), so a run's own reports never waive its failure.
 */
export class TestResultsIndex {
  private readonly repos = new Map<string, RepoIndex>();

  constructor(
    private readonly store: EventStore,
    private readonly blobs?: BlobStore,
    /** Commits kept per repository: far more than the runs a queue has in flight. */
    private readonly maxCommits = 5000,
  ) {}

  /** The failing tests uploaded for `sha`; undefined when no upload names one (nothing is known). */
  async failingTests(repo: RepoRef, sha: string): Promise<FailingTest[] | undefined> {
    const index = await this.catchUp(repo);
    const uploads = index.byCommit.get(sha);
    if (!uploads) return undefined;
    const out = new Map<string, FailingTest>();
    for (const upload of uploads)
      for (const c of upload.failing) out.set(c.id, { name: c.name, health: this.healthOf(index, c.id, upload.revision) });
    return out.size === 0 ? undefined : [...out.values()];
  }

  private healthOf(index: RepoIndex, testId: string, uploadRevision: number): TestHealth {
    const basis = index.status.get(testId) ?? { status: 'HEALTHY', corroborated: false };
    const status = basis.status;
    // A quarantine waiver needs flakiness that stands without the pull request this run tests (issue 25).
    if (isQuarantined(basis, index.override.get(testId))) return 'quarantined';
    if (status === 'FLAKY') return 'flaky';
    if (status === 'BROKEN') return 'broken';
    return (index.firstSeen.get(testId) ?? uploadRevision) >= uploadRevision ? 'new' : 'healthy';
  }

  private async catchUp(repo: RepoRef): Promise<RepoIndex> {
    const stream = testsStreamOf(repo);
    let index = this.repos.get(stream);
    if (!index) {
      index = emptyIndex();
      this.repos.set(stream, index);
    }
    const events = await this.store.readStream(stream, index.next);
    for (const e of events) {
      await this.fold(index, e);
      index.next = e.revision + 1;
    }
    return index;
  }

  private async fold(index: RepoIndex, e: RecordedEvent): Promise<void> {
    switch (e.type) {
      case 'TestResultsUploaded': {
        const data = e.data as TestResultsUploaded['data'];
        const cases = await casesOf(data.cases, async (digest) => (this.blobs ? this.blobs.get(digest) : null));
        for (const c of cases) if (!index.firstSeen.has(c.id)) index.firstSeen.set(c.id, e.revision);
        // `flaky` cases failed and then passed inside the run: they did not fail it.
        const failing = cases.filter((c) => c.outcome === 'failed').map((c) => ({ id: c.id, name: c.name }));
        const uploads = index.byCommit.get(data.commitSha) ?? [];
        uploads.push({ revision: e.revision, failing });
        index.byCommit.delete(data.commitSha);
        index.byCommit.set(data.commitSha, uploads);
        while (index.byCommit.size > this.maxCommits) index.byCommit.delete(index.byCommit.keys().next().value as string);
        return;
      }
      case 'TestStatusChanged': {
        const data = e.data as TestStatusChanged['data'];
        index.status.set(data.testId, { status: data.status, corroborated: data.corroborated === true });
        return;
      }
      case 'QuarantineOverrideSet': {
        const data = e.data as QuarantineOverrideSet['data'];
        if (data.override === null) index.override.delete(data.testId);
        else index.override.set(data.testId, data.override);
        return;
      }
      default:
        return;
    }
  }
}

/** The commits whose results the planner needs: runs a required check fails now, and failed runs PRs still wait on. */
const commitsToJudge = (s: QueueState, facts: HostFacts): string[] => {
  const shas = new Set<string>();
  const waitedOn = new Set<string>();
  for (const e of s.entries.values()) if (e.state === 'pending_failure' && e.testRunId !== undefined) waitedOn.add(e.testRunId);
  for (const run of s.runs.values()) {
    if (run.status === 'testing' && failsNow(run, facts)) shas.add(run.testBranchSha);
    if ((run.status === 'failed' || run.status === 'cancelled') && waitedOn.has(run.testRunId)) shas.add(run.testBranchSha);
  }
  return [...shas];
};

/** Whether a required check of the running run has failed, recorded or just reported. */
const failsNow = (run: TestRun, facts: HostFacts): boolean => {
  if (requiredOutcome(run).kind === 'failed') return true;
  return (facts.statuses.get(run.testBranchSha) ?? []).some(
    (st) => run.requiredStatuses.includes(st.context) && (st.state === 'failure' || st.state === 'error'),
  );
};

/**
 * A failure a run's checks reported while this process's CI still works on the run (it uploads the
 * run's JUnit reports once every check finished) is shown once that is done: judged without its
 * results, a real failure would spend a re-run and a quarantined one could not pass. The check's
 * other statuses are shown as they are; a CI this process does not run is never held.
 */
const holdUntilUploaded = (s: QueueState, facts: HostFacts, reportsPending?: (testRunId: string) => boolean): HostFacts => {
  if (!reportsPending) return facts;
  let statuses: Map<string, readonly ReportedStatus[]> | undefined;
  for (const run of s.runs.values()) {
    if (run.status !== 'testing' || !reportsPending(run.testRunId)) continue;
    const reported = facts.statuses.get(run.testBranchSha);
    if (!reported?.some((st) => st.state === 'failure' || st.state === 'error')) continue;
    statuses ??= new Map(facts.statuses);
    statuses.set(
      run.testBranchSha,
      reported.filter((st) => st.state !== 'failure' && st.state !== 'error'),
    );
  }
  return statuses ? { ...facts, statuses } : facts;
};

/**
 * The checks the CI would run again at the commits of runs that failed or may fail now
 * (HostFacts.rerunnable): a flake re-run of a check nobody runs again would wait for ever. A lookup
 * that fails leaves the commit out (every check counts as re-runnable, as before).
 */
const withRerunnable = async (
  s: QueueState,
  facts: HostFacts,
  rerunnableChecks: (repo: RepoRef, sha: string, configSha: string) => Promise<ReadonlySet<string> | undefined>,
  onError?: (err: unknown) => void,
): Promise<HostFacts> => {
  // Per tested commit, the commit whose files gate its run (its checks are the base's, not the tree's).
  const shas = new Map<string, string>();
  for (const run of s.runs.values()) {
    if (run.status === 'failed' || run.status === 'cancelled' || (run.status === 'testing' && failsNow(run, facts)))
      shas.set(run.testBranchSha, gatingConfigCommit(run));
  }
  if (shas.size === 0) return facts;
  const rerunnable = new Map<string, ReadonlySet<string>>();
  for (const [sha, configSha] of shas) {
    try {
      const checks = await rerunnableChecks(s.repo, sha, configSha);
      if (checks) rerunnable.set(sha, checks);
    } catch (err) {
      onError?.(err);
    }
  }
  return rerunnable.size > 0 ? { ...facts, rerunnable } : facts;
};

/**
 * The engine's facts with the test results of failing runs added (HostFacts.testResults). A lookup
 * that fails leaves the results out: the planner then knows nothing of the failure, which re-runs
 * it at worst, and never passes it (quarantine needs the results).
 */
export const withTestResults = (
  inner: FactsSource,
  index: TestResultsIndex,
  opts: {
    onError?: (err: unknown) => void;
    reportsPending?: (testRunId: string) => boolean;
    rerunnableChecks?: (repo: RepoRef, sha: string, configSha: string) => Promise<ReadonlySet<string> | undefined>;
  } = {},
): FactsSource => ({
  read: async (s, readOpts) => {
    const held = holdUntilUploaded(s, await inner.read(s, readOpts), opts.reportsPending);
    const facts = opts.rerunnableChecks ? await withRerunnable(s, held, opts.rerunnableChecks, opts.onError) : held;
    const shas = commitsToJudge(s, facts);
    if (shas.length === 0) return facts;
    const testResults = new Map<string, RunTestResults>();
    try {
      for (const sha of shas) {
        const failing = await index.failingTests(s.repo, sha);
        if (failing) testResults.set(sha, { failing });
      }
    } catch (err) {
      opts.onError?.(err);
      return facts;
    }
    return { ...facts, testResults };
  },
  target: (s) => inner.target(s),
  forgetPull: (s, prNumber) => inner.forgetPull(s, prNumber),
  forgetTarget: (s) => inner.forgetTarget(s),
});

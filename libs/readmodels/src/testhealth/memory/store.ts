import type { BlobStore, RecordedEvent } from '@railyard/eventstore';
import {
  casesOf,
  isTestHealthEvent,
  type CaseRecord,
  type CiRunRecorded,
  type PageCursor,
  type TestResultsUploaded,
} from '@railyard/testhealth';
import { CheckpointWaiters } from '../../memory/waiters';
import type { RunEntry, StoredTest, TestDoc, UploadMeta } from '../projection/docs';
import type { CiRun, ListedPage, TestHealthReadModels, TestHistory } from '../port';
import { foldTestEvent, foldUpload, testIdOfEvent, uploadMetaOf } from '../projection/fold';
import { historyOf, DEFAULT_MAX_RUNS_PER_TEST, DEFAULT_RETENTION_DAYS } from '../projection/history';
import { idOfMember, indexOpsOf, type IndexName } from '../projection/indexes';
import { pageStart } from '../projection/page-window';
import { SortedMembers } from './sorted-members';
import type { Snapshottable } from '../../memory/snapshot';

export interface TestHealthStoreOptions {
  /** Where large upload case lists live (the events carry only their digest). */
  blobs: Pick<BlobStore, 'get'>;
  maxRunsPerTest?: number;
  retentionDays?: number;
}

interface RepoModels {
  tests: Map<string, StoredTest>;
  runs: Map<string, RunEntry[]>;
  uploads: Map<number, UploadMeta>;
  indexes: Record<IndexName, SortedMembers>;
  /** testId → time of its last failure, in ms. */
  failures: Map<string, number>;
}

/** A repository's models as a snapshot holds them: the indexes as their sorted members. */
type RepoSnapshot = Omit<RepoModels, 'indexes'> & { indexes: Record<IndexName, string[]> };

interface TestHealthSnapshot {
  repos: Map<string, RepoSnapshot>;
  ciRuns: Map<string, Map<string, CiRun>>;
}

const DAY_MS = 86_400_000;

const newRepo = (): RepoModels => ({
  tests: new Map(),
  runs: new Map(),
  uploads: new Map(),
  indexes: { flaky: new SortedMembers(), broken: new SortedMembers(), quarantined: new SortedMembers() },
  failures: new Map(),
});

/** Test-health read models in process memory: the embedded mode (rebuilt from the events at start) and tests. */
export class MemoryTestHealthStore implements TestHealthReadModels, Snapshottable {
  readonly snapshotName = 'test-health';
  // Raise with any change to the documents, the indexes or how the test-health projection folds them.
  readonly snapshotSchema = 1;
  private repos = new Map<string, RepoModels>();
  /** CI runs as recorded, by repo id and run id; apart from `repos`, which holds the repositories with uploads. */
  private ciRuns = new Map<string, Map<string, CiRun>>();
  private position: bigint | null = null;
  private readonly waiters = new CheckpointWaiters();
  private readonly maxRuns: number;
  private readonly retentionMs: number;
  /** Batches go one after another: blobs load asynchronously, the fold itself runs in one turn. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: TestHealthStoreOptions) {
    this.maxRuns = options.maxRunsPerTest ?? DEFAULT_MAX_RUNS_PER_TEST;
    this.retentionMs = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * DAY_MS;
  }

  apply(events: RecordedEvent[]): Promise<void> {
    const run = this.tail.then(() => this.applyNow(events));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async applyNow(events: RecordedEvent[]): Promise<void> {
    const fresh = this.position === null ? events : events.filter((e) => e.position > (this.position as bigint));
    const last = fresh[fresh.length - 1];
    if (!last) return;
    const relevant = fresh.filter(isTestHealthEvent);
    // Blobs first; after this point nothing awaits, so readers see the batch whole or not at all.
    const cases = new Map<RecordedEvent, CaseRecord[]>();
    for (const e of relevant) {
      if (e.type === 'TestResultsUploaded')
        cases.set(e, await casesOf((e.data as TestResultsUploaded['data']).cases, (d) => this.options.blobs.get(d)));
    }
    for (const e of relevant) this.applyOne(e, cases.get(e) ?? []);
    this.position = last.position;
    this.waiters.reached(last.position);
  }

  private applyOne(event: RecordedEvent, cases: CaseRecord[]): void {
    const repoId = event.streamId.slice('tests-'.length);
    if (event.type === 'CiRunRecorded') {
      const { repo: _repo, ...run } = event.data as CiRunRecorded['data'];
      this.ciRuns.set(repoId, (this.ciRuns.get(repoId) ?? new Map<string, CiRun>()).set(run.runId, run));
      return;
    }
    let repo = this.repos.get(repoId);
    if (!repo) {
      repo = newRepo();
      this.repos.set(repoId, repo);
    }
    const models = repo;
    if (event.type === 'TestResultsUploaded') {
      const data = event.data as TestResultsUploaded['data'];
      models.uploads.set(event.revision, uploadMetaOf(event.revision, data));
      this.prune(models, Date.parse(data.at) - this.retentionMs);
      for (const write of foldUpload(event, cases, (id) => models.tests.get(id) ?? null)) {
        this.store(models, write.before, write.after, event.position);
        if (write.run) {
          const runs = models.runs.get(write.after.id) ?? [];
          runs.push(write.run);
          if (runs.length > this.maxRuns) runs.splice(0, runs.length - this.maxRuns);
          models.runs.set(write.after.id, runs);
        }
      }
      return;
    }
    const testId = testIdOfEvent(event);
    if (testId === undefined) return;
    const stored = models.tests.get(testId) ?? null;
    const after = foldTestEvent(stored, event);
    if (after && stored) this.store(models, stored.doc, after, event.position);
  }

  private store(models: RepoModels, before: TestDoc | null, after: TestDoc, pos: bigint): void {
    // Folds replace documents and never edit one, so readers get the stored object itself (no copy of
    // 50,000 documents per upload); the freeze turns a caller's accidental write into an error.
    models.tests.set(after.id, { doc: Object.freeze(after), pos });
    for (const op of indexOpsOf(before, after)) {
      if (op.op === 'add') models.indexes[op.index].add(op.member);
      else models.indexes[op.index].remove(op.member);
    }
    if (after.lastFailedAt !== null) models.failures.set(after.id, Date.parse(after.lastFailedAt));
  }

  private prune(models: RepoModels, beforeMs: number): void {
    for (const [revision, meta] of models.uploads) if (Date.parse(meta.at) < beforeMs) models.uploads.delete(revision);
  }

  async checkpoint(): Promise<bigint | null> {
    return this.position;
  }

  // A batch waiting for its blobs has changed nothing yet: the models and the position agree.
  snapshot(): { position: bigint; body: TestHealthSnapshot } | null {
    if (this.position === null) return null;
    const repos = new Map<string, RepoSnapshot>();
    for (const [id, m] of this.repos)
      repos.set(id, {
        ...m,
        indexes: { flaky: m.indexes.flaky.toArray(), broken: m.indexes.broken.toArray(), quarantined: m.indexes.quarantined.toArray() },
      });
    return { position: this.position, body: { repos, ciRuns: this.ciRuns } };
  }

  restore(position: bigint, body: unknown): void {
    const b = body as TestHealthSnapshot;
    const repos = new Map<string, RepoModels>();
    for (const [id, m] of b.repos)
      repos.set(id, {
        ...m,
        indexes: {
          flaky: SortedMembers.of(m.indexes.flaky),
          broken: SortedMembers.of(m.indexes.broken),
          quarantined: SortedMembers.of(m.indexes.quarantined),
        },
      });
    this.repos = repos;
    this.ciRuns = b.ciRuns;
    this.position = position;
    this.waiters.reached(position);
  }

  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.position !== null && this.position >= position) return true;
    return this.waiters.wait(position, timeoutMs);
  }

  async getCiRun(repoId: string, runId: string): Promise<CiRun | null> {
    return this.ciRuns.get(repoId)?.get(runId) ?? null;
  }

  async getTest(repoId: string, testId: string): Promise<TestDoc | null> {
    return this.repos.get(repoId)?.tests.get(testId)?.doc ?? null;
  }

  async getTests(repoId: string, testIds: readonly string[]): Promise<(TestDoc | null)[]> {
    const tests = this.repos.get(repoId)?.tests;
    return testIds.map((id) => tests?.get(id)?.doc ?? null);
  }

  async getHistories(repoId: string, testIds: readonly string[]): Promise<TestHistory[]> {
    const repo = this.repos.get(repoId);
    return testIds.map((id) => {
      const runs = repo?.runs.get(id) ?? [];
      const history = repo ? historyOf(runs, repo.uploads) : [];
      return { runs: history, revision: runs.reduce((max, r) => Math.max(max, r.revision), -1) };
    });
  }

  async listPage(repoId: string, index: IndexName, size: number, cursor?: PageCursor): Promise<ListedPage> {
    const repo = this.repos.get(repoId);
    if (!repo) return { rows: [], totalRows: 0, start: 0 };
    const members = repo.indexes[index];
    const start = await pageStart(index, size, cursor, {
      total: members.size,
      countBelow: (m) => members.countBelow(m),
      countAtOrBelow: (m) => members.countAtOrBelow(m),
    });
    const rows = members
      .slice(start, size)
      .map((m) => repo.tests.get(idOfMember(m))?.doc)
      .filter((d): d is TestDoc => d !== undefined);
    return { rows, totalRows: members.size, start };
  }

  async watchList(repoId: string, failedSince: string): Promise<string[]> {
    const repo = this.repos.get(repoId);
    if (!repo) return [];
    const since = Date.parse(failedSince);
    const ids = new Set<string>();
    for (const [id, t] of repo.failures) if (t >= since) ids.add(id);
    for (const index of ['flaky', 'broken'] as const) {
      for (const m of repo.indexes[index].slice(0, repo.indexes[index].size)) ids.add(idOfMember(m));
    }
    return [...ids];
  }

  async repoIds(): Promise<string[]> {
    return [...this.repos.keys()];
  }

  async reset(): Promise<void> {
    await this.tail;
    this.repos = new Map();
    this.ciRuns = new Map();
    this.position = null;
  }

  async close(): Promise<void> {
    this.waiters.cancelAll();
  }
}

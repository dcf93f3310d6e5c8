import type { RecordedEvent } from '@railyard/eventstore';
import type { CiRunRecorded, PageCursor, TestRun } from '@railyard/testhealth';
import type { TestDoc } from './projection/docs';
import type { IndexName } from './projection/indexes';

/** A CI run as its CI reported it. */
export type CiRun = Omit<CiRunRecorded['data'], 'repo'>;

export interface TestHistory {
  runs: TestRun[];
  /** Highest stream revision among the runs (-1 when there are none). */
  revision: number;
}

/** One page of a listing, by keyset: `start` is the 0-based position of the first row. */
export interface ListedPage {
  rows: TestDoc[];
  totalRows: number;
  start: number;
}

/**
 * The test-health read models: per-test documents with their run history, and the two spec
 * listings (unhealthy by status, quarantined). Fed by the projector like ReadModelStore, from the
 * `tests-<repoId>` streams only; every other event is skipped.
 */
export interface TestHealthReadModels {
  /** Folds the events and moves the checkpoint; events at or below it are skipped. */
  apply(events: RecordedEvent[]): Promise<void>;
  checkpoint(): Promise<bigint | null>;
  waitFor(position: bigint, timeoutMs: number): Promise<boolean>;
  getTest(repoId: string, testId: string): Promise<TestDoc | null>;
  /** Same order as `testIds`; null for unknown tests. */
  getTests(repoId: string, testIds: readonly string[]): Promise<(TestDoc | null)[]>;
  /** Run history of each test, joined with its uploads, oldest first. */
  getHistories(repoId: string, testIds: readonly string[]): Promise<TestHistory[]>;
  /**
   * A page of `index` in its order. `cursor` comes from a verified page token (after / before /
   * last); without one the first page. A cursor whose key cannot occur in the index gives the first page.
   */
  listPage(repoId: string, index: IndexName, size: number, cursor?: PageCursor): Promise<ListedPage>;
  /** Tests the periodic re-evaluation must look at: unhealthy ones, and those that failed at or after `failedSince`. */
  watchList(repoId: string, failedSince: string): Promise<string[]>;
  /** A CI run as recorded (flaky-ci/create-ci-run), by its run id; null when none was. */
  getCiRun(repoId: string, runId: string): Promise<CiRun | null>;
  /** Repositories with at least one upload. */
  repoIds(): Promise<string[]>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

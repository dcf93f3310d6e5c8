import type { IndexName } from '../projection/indexes';

/**
 * Keys of the test-health models. They share the read models' hash tag (`ry:{<namespace>}:`), so a
 * batch's writes and the checkpoint sit in one cluster slot and go through one script; the `th:`
 * prefix keeps them apart from the queue models (whose reset never touches them, and vice versa).
 * Repo ids are URI-encoded, so they hold no `:`, `{` or `}`.
 */
export interface TestHealthKeys {
  /** STRING: position of the last applied event, 20 digits (or the reset marker). */
  checkpoint: string;
  /** SET of repo ids with uploads. */
  repos: string;
  /** STRING: 20-digit position of the last event folded in, then the JSON TestDoc. */
  test(repoId: string, testId: string): string;
  /** LIST of encoded runs, oldest first, capped. */
  runs(repoId: string, testId: string): string;
  /** HASH: stream revision → JSON UploadMeta. */
  uploads(repoId: string): string;
  /** ZSET: stream revision scored by upload time (ms), to drop old uploads. */
  uploadTimes(repoId: string): string;
  /** ZSET, all scores 0: listing members in order (see projection/indexes). */
  index(repoId: string, index: IndexName): string;
  /** ZSET: test id scored by its last failure (ms), for the periodic re-evaluation. */
  failures(repoId: string): string;
  /** HASH: run id → JSON CiRun, the CI runs recorded (flaky-ci/create-ci-run). */
  ciRuns(repoId: string): string;
  /** SCAN patterns covering every model key (not the checkpoint). */
  modelPatterns: string[];
}

const NAMESPACE = /^[A-Za-z0-9_.-]{1,64}$/;

export const testHealthKeys = (namespace: string): TestHealthKeys => {
  if (!NAMESPACE.test(namespace)) throw new Error(`read-model namespace must match ${String(NAMESPACE)}: ${namespace}`);
  const base = `ry:{${namespace}}:th:`;
  return {
    checkpoint: `${base}checkpoint`,
    repos: `${base}repos`,
    test: (repoId, testId) => `${base}t:${repoId}:${testId}`,
    runs: (repoId, testId) => `${base}r:${repoId}:${testId}`,
    uploads: (repoId) => `${base}u:${repoId}`,
    uploadTimes: (repoId) => `${base}ut:${repoId}`,
    index: (repoId, index) => `${base}i:${repoId}:${index}`,
    failures: (repoId) => `${base}f:${repoId}`,
    ciRuns: (repoId) => `${base}ci:${repoId}`,
    modelPatterns: [`${base}t:*`, `${base}r:*`, `${base}u:*`, `${base}ut:*`, `${base}i:*`, `${base}f:*`, `${base}ci:*`, `${base}repos`],
  };
};

export const POSITION_WIDTH = 20;
export const encodePosition = (position: bigint): string => position.toString().padStart(POSITION_WIDTH, '0');

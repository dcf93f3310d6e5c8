import type { TestRun } from '@railyard/testhealth';
import type { RunEntry, UploadMeta } from './docs';

/** Default cap on runs kept per test (oldest dropped first). */
export const DEFAULT_MAX_RUNS_PER_TEST = 300;
/** Default age after which an upload's metadata is dropped, and with it every run that points at it. */
export const DEFAULT_RETENTION_DAYS = 60;

/** The runs classify needs: each run joined with its upload; runs of dropped uploads are left out. */
export const historyOf = (runs: readonly RunEntry[], uploads: ReadonlyMap<number, UploadMeta>): TestRun[] => {
  const history: TestRun[] = [];
  for (const run of runs) {
    const u = uploads.get(run.revision);
    if (!u) continue;
    history.push({
      at: u.at,
      commitSha: u.commitSha,
      ...(u.treeSha ? { treeSha: u.treeSha } : {}),
      branch: u.branch,
      ...(u.prNumber !== undefined ? { prNumber: u.prNumber } : {}),
      ...(u.ciJob ? { ciJob: u.ciJob } : {}),
      outcome: run.outcome,
      upload: { testCount: u.testCount, failedCount: u.failedCount },
      ...(u.reporter !== undefined ? { reporter: u.reporter } : {}),
    });
  }
  return history;
};

import { LOCAL_CI_REPORTER } from '@railyard/domain';
import type { Logger } from '@railyard/observability';
import type { RepoFacts, RepoRef } from '@railyard/testhealth';
import type { UploadRecorder, UploadSummary } from './recorder';

/** What the local CI runner hands over after a run's checks: the report files its `.railyard.yml` names. */
export interface RunnerReports {
  repo: RepoRef;
  sha: string;
  testRunId: string;
  files: Buffer[];
  /** The tested branch when the runner knows it; otherwise it is looked up from the test run id. */
  branch?: string;
  prNumber?: number;
}

export type UploadReports = (reports: RunnerReports) => Promise<void>;

/**
 * The local CI runner's `uploadReports`: the same recorder as the HTTP endpoint, acting as the
 * `ci-runner` actor. Runs of the merge queue happen on its test branches, which count as protected.
 */
export const reportUploader =
  (recorder: UploadRecorder, facts: RepoFacts, logger: Logger, onRecorded?: (summary: UploadSummary) => void): UploadReports =>
  async ({ repo, sha, testRunId, files, branch, prNumber }) => {
    if (files.length === 0) return;
    const tested = branch ?? (await facts.testBranchOf(repo, testRunId)) ?? `railyard-merge/${testRunId}`;
    try {
      const summary = await recorder.record(
        {
          repo,
          branch: tested,
          commitSha: sha.toLowerCase(),
          testRunId,
          reporter: LOCAL_CI_REPORTER,
          ...(prNumber !== undefined ? { prNumber } : {}),
          ciJob: 'railyard-ci',
          files: files.map((bytes, i) => ({ name: `report-${i + 1}.xml`, bytes })),
        },
        { actor: 'ci-runner', correlationId: testRunId },
      );
      onRecorded?.(summary);
    } catch (err) {
      logger.warn('test reports of a CI run were not recorded', { testRunId, error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  };

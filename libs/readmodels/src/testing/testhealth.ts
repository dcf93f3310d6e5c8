import type { RecordedEvent } from '@railyard/eventstore';
import { StreamRecorder } from './recorded';
import {
  caseRecordsOf,
  repoIdOf,
  testsStreamOf,
  TEST_HEALTH_EVENT_SCHEMA_VERSION,
  type CaseRecord,
  type RepoRef,
  type RunOutcome,
  type TestHealthEvent,
  type TestResultsUploaded,
} from '@railyard/testhealth';

export const TH_REPO: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
export const TH_REPO_ID = repoIdOf(TH_REPO);
export const TH_ORG = 'acme-org';

/** A case record for test `name` (file `src/<name>.test.ts`) with the given outcome. */
export const caseOf = (name: string, outcome: RunOutcome, extra: Partial<CaseRecord> = {}): CaseRecord => {
  const [record] = caseRecordsOf(
    [
      {
        name,
        classname: extra.classname ?? 'suite',
        file: extra.file ?? `src/${name}.test.ts`,
        parent: extra.parent ?? 'suite',
        variant: extra.variant ?? '',
        status: outcome,
        durationMs: 1,
        attempts: 1,
        failedAttempts: outcome === 'passed' ? 0 : 1,
      },
    ],
    { orgSlug: TH_ORG, repo: TH_REPO },
  );
  return { ...(record as CaseRecord), ...extra };
};

export const uploadOf = (
  cases: CaseRecord[] | { digest: string; count: number },
  at: string,
  extra: Partial<TestResultsUploaded['data']> = {},
): TestResultsUploaded => {
  const list = Array.isArray(cases) ? cases : [];
  const failed = list.filter((c) => c.outcome === 'failed').length;
  return {
    type: 'TestResultsUploaded',
    data: {
      uploadId: `u-${at}`,
      repo: TH_REPO,
      orgSlug: TH_ORG,
      branch: 'main',
      commitSha: 'a'.repeat(40),
      files: [{ name: 'junit.xml', bytes: 100 }],
      stats: { testCount: Array.isArray(cases) ? list.filter((c) => c.outcome !== 'skipped').length : cases.count, failedCount: failed },
      caseCount: Array.isArray(cases) ? list.length : cases.count,
      warnings: [],
      suiteFailures: [],
      cases: Array.isArray(cases) ? { inline: cases } : { digest: cases.digest, count: cases.count, encoding: 'json+gzip' },
      at,
      ...extra,
    },
  };
};

/** Recorded test-health events with increasing positions and per-stream revisions, as a store hands them out. */
export class TestHealthEventFactory extends StreamRecorder {
  constructor(firstPosition = 1n) {
    super(TEST_HEALTH_EVENT_SCHEMA_VERSION, 'tester', firstPosition);
  }

  record(repo: RepoRef, ...events: TestHealthEvent[]): RecordedEvent[] {
    return this.recordOn(testsStreamOf(repo), ...events);
  }
}

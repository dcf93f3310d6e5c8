import type { RecordedEvent } from '@railyard/eventstore';
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
export class TestHealthEventFactory {
  private nextPosition: bigint;
  private readonly revisions = new Map<string, number>();

  constructor(firstPosition = 1n) {
    this.nextPosition = firstPosition;
  }

  record(repo: RepoRef, ...events: TestHealthEvent[]): RecordedEvent[] {
    return this.recordOn(testsStreamOf(repo), ...events);
  }

  /** Any stream: lets a test interleave events the test-health models must skip. */
  recordOn(streamId: string, ...events: { type: string; data: { at: string } }[]): RecordedEvent[] {
    return events.map((event) => {
      const revision = (this.revisions.get(streamId) ?? -1) + 1;
      this.revisions.set(streamId, revision);
      const position = this.nextPosition;
      this.nextPosition += 1n;
      return {
        streamId,
        revision,
        position,
        eventId: `${streamId}@${revision}`,
        type: event.type,
        data: event.data,
        metadata: { schemaVersion: TEST_HEALTH_EVENT_SCHEMA_VERSION, actor: 'tester', correlationId: `c-${position}`, at: event.data.at },
        recordedAt: event.data.at,
      };
    });
  }
}

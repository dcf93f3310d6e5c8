import type { ActiveMonitor, RunOutcome, TestStatus } from '../classify/types';
import type { UploadStats } from '../junit/upload-stats';
import type { ParseWarning, SuiteFailure } from '../junit/types';

/** Version stamped into the metadata of every test-health event. */
export const TEST_HEALTH_EVENT_SCHEMA_VERSION = 1;

export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

/**
 * One test case of an upload, as recorded: identity plus outcome. The failure message is kept so an
 * auditor can see why a run failed; everything else the parser reads stays out to keep blobs small.
 */
export interface CaseRecord {
  /** testIdOf over the identity below and the server's organisation. */
  id: string;
  name: string;
  classname: string;
  file: string;
  parent: string;
  variant: string;
  outcome: RunOutcome;
  durationMs: number;
  failureMessage?: string;
}

/**
 * Where an upload's cases are: inline when small, else a gzip JSON array in the blob store under its
 * SHA-256 (events stay far below KurrentDB's 1 MiB per event).
 */
export type CasesRef = { inline: CaseRecord[] } | { digest: string; count: number; encoding: 'json+gzip' };

interface Ev<T extends string, D> {
  type: T;
  data: D & { at: string };
}

export type TestResultsUploaded = Ev<
  'TestResultsUploaded',
  {
    uploadId: string;
    repo: RepoRef;
    /** The organisation slug the case ids were computed with. */
    orgSlug: string;
    branch: string;
    commitSha: string;
    /** Tree of the commit when the git host knows it: the same code under a rebased commit still pairs. */
    treeSha?: string;
    prNumber?: number;
    ciJob?: string;
    /** Set when the upload came from Railyard's own CI runner. */
    testRunId?: string;
    /**
     * Who uploaded it: `local-ci` (the local CI runner's reports of the checks it ran) or `token:<name>`
     * (uploadTestResults). Absent in events recorded before uploaders were: one with a `testRunId` is
     * the local CI's, any other's uploader is unknown.
     */
    reporter?: string;
    files: { name: string; bytes: number }[];
    stats: UploadStats;
    caseCount: number;
    warnings: ParseWarning[];
    /** At most MAX_RECORDED_SUITE_FAILURES, messages truncated by the parser. */
    suiteFailures: SuiteFailure[];
    cases: CasesRef;
  }
>;

/** The evaluation an event is based on: runs up to this stream revision, judged at `at`. Later bases win. */
export interface EvaluationBasis {
  revision: number;
}

export interface StatusRecord {
  status: TestStatus;
  reason: string;
  /** When the status began (the spec's status.timestamp). */
  since: string;
}

export type TestStatusChanged = Ev<
  'TestStatusChanged',
  StatusRecord & {
    repo: RepoRef;
    testId: string;
    previous: StatusRecord;
    monitors: ActiveMonitor[];
    pullRequestsImpactedLast7d: number;
    basis: EvaluationBasis;
    /**
     * FLAKY and still FLAKY without the runs of any single pull request (corroborationOf): only then is
     * the test quarantined automatically. Absent in events recorded before the rule: read as false.
     */
    corroborated?: boolean;
  }
>;

/** Only the 7-day PR impact moved (a new failing PR, or old ones leaving the window). */
export type TestImpactChanged = Ev<
  'TestImpactChanged',
  { repo: RepoRef; testId: string; previous: number; pullRequestsImpactedLast7d: number; basis: EvaluationBasis }
>;

export type QuarantineOverrideSet = Ev<
  'QuarantineOverrideSet',
  { repo: RepoRef; testId: string; override: 'always' | 'never' | null; previous: 'always' | 'never' | null; reason?: string }
>;

/** `externalId`: the tracker's id the ticket was linked by (Trunk's external_ticket_id), when it was. */
export type TestTicketLinked = Ev<'TestTicketLinked', { repo: RepoRef; testId: string; htmlUrl: string | null; externalId?: string }>;

/**
 * A CI run as its CI reported it (Trunk's flaky-ci/create-ci-run): the job, its commit, attempt and
 * outcome. `runId` is derived from what identifies the run, so a CI reporting one run twice gets one id.
 */
export type CiRunRecorded = Ev<
  'CiRunRecorded',
  {
    repo: RepoRef;
    runId: string;
    ciJobName: string;
    provider?: string;
    runStart: string;
    runEnd: string;
    branch: string;
    commitSha: string;
    attempt: number;
    conclusion?: 'success' | 'failure' | 'skipped' | 'cancelled';
    /** Whether a failure came from the tests or from the CI itself (infrastructure). */
    conclusionCause?: 'test' | 'ci';
    providersJobId?: string;
    providersRunId?: string;
  }
>;

/**
 * Whose uploads count as evidence for an automatic quarantine in a repository (docs/test-health.md §4,
 * "Who may upload evidence"): token names or reporter ids, or null for everyone (the default). Kept in
 * a stream of its own per repository (`testEvidenceStreamOf`), which the evaluator reads whole.
 */
export type TestEvidenceReportersSet = Ev<
  'TestEvidenceReportersSet',
  { repo: RepoRef; reporters: string[] | null; previous: string[] | null }
>;

export type TestHealthEvent =
  TestResultsUploaded | TestStatusChanged | TestImpactChanged | QuarantineOverrideSet | TestTicketLinked | CiRunRecorded;
export type TestHealthEventType = TestHealthEvent['type'];

export const TEST_HEALTH_EVENT_TYPES: readonly TestHealthEventType[] = [
  'TestResultsUploaded',
  'TestStatusChanged',
  'TestImpactChanged',
  'QuarantineOverrideSet',
  'TestTicketLinked',
  'CiRunRecorded',
];

export const MAX_RECORDED_SUITE_FAILURES = 20;

export const TESTS_STREAM_PREFIX = 'tests-';

// Same escaping as queue ids: `~` stays free as the separator, so the id is injective over the repo.
const part = (s: string): string => encodeURIComponent(s).replace(/~/g, '%7E');

export const repoIdOf = (repo: RepoRef): string => [repo.host, repo.owner, repo.name].map(part).join('~');

export const testsStreamOf = (repo: RepoRef): string => `${TESTS_STREAM_PREFIX}${repoIdOf(repo)}`;

/**
 * The repository's evidence-reporters setting. Not a `tests-` stream: the test-health projection skips
 * it, and the evaluator reads these few events whole instead of the stream of every upload.
 */
export const testEvidenceStreamOf = (repo: RepoRef): string => `test-evidence-${repoIdOf(repo)}`;

export const isTestHealthEvent = (event: { streamId: string; type: string }): boolean =>
  event.streamId.startsWith(TESTS_STREAM_PREFIX) && (TEST_HEALTH_EVENT_TYPES as readonly string[]).includes(event.type);

/** The repository a repo id names; null for a string repoIdOf never produces. */
export const repoOfId = (repoId: string): RepoRef | null => {
  const parts = repoId.split('~');
  if (parts.length !== 3) return null;
  try {
    const [host, owner, name] = parts.map(decodeURIComponent) as [string, string, string];
    return { host, owner, name };
  } catch {
    return null;
  }
};

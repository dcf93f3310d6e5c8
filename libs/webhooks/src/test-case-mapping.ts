import type { RecordedEvent } from '@railyard/eventstore';
import {
  DEFAULT_CLASSIFICATION_RULES,
  failureSummary,
  isOutageUpload,
  mostCommonFailures,
  tallyFailure,
  isQuarantined,
  TESTS_STREAM_PREFIX,
  type CaseRecord,
  type FailureCount,
  type QuarantineOverrideSet,
  type StatusRecord,
  type TestImpactChanged,
  type TestResultsUploaded,
  type TestStatus,
  type TestStatusChanged,
  type TestTicketLinked,
} from '@railyard/testhealth';
import type { DashboardLinks } from './links';
import type { WebhookMessage } from './messages';

type Override = 'always' | 'never' | null;
type Unaddressed = Omit<WebhookMessage, 'eventId' | 'position' | 'index'>;

const HOUR_MS = 3_600_000;
const WINDOW_HOURS = 7 * 24;

interface Bucket {
  runs: number;
  failed: number;
}

interface TestCase {
  name?: string;
  classname: string;
  file: string;
  parent: string;
  variant: string;
  /** Non-skipped runs per hour (epoch hour): the failure rates, to the hour, without keeping every run. */
  hours: Map<number, Bucket>;
  failures: FailureCount[];
  status: StatusRecord;
  corroborated: boolean;
  override: Override;
  impacted7d: number;
  ticketUrl?: string;
}

const SETTING: Record<'always' | 'never' | 'null', string> = {
  always: 'ALWAYS_QUARANTINE',
  never: 'NEVER_QUARANTINE',
  null: 'UNSPECIFIED',
};
const settingOf = (o: Override): string => SETTING[o ?? 'null'];
const statusOf = (s: TestStatus): 'healthy' | 'flaky' | 'broken' => s.toLowerCase() as 'healthy' | 'flaky' | 'broken';

/**
 * Turns the test-health streams (`tests-<repo>`) into Trunk's `test_case.status_changed` and
 * `test_case.quarantining_setting_changed`. Trunk's payload describes the whole test (name, failure
 * rates, most common failures), which the status events do not carry, so this folds the uploads too:
 * the cases' identity, runs per hour for the rates and failure summaries, all as of the event's own
 * time, so a replay gives the same payload. Codeowners need the repository's files: always `[]`.
 */
export class TestCaseMapper {
  private readonly tests = new Map<string, TestCase>();

  constructor(private readonly links: Pick<DashboardLinks, 'test' | 'repository'>) {}

  /** `cases`: an upload's cases when they are in the blob store (the event only names them); undefined when unreadable. */
  apply(recorded: RecordedEvent, cases?: readonly CaseRecord[]): Unaddressed[] {
    if (!recorded.streamId.startsWith(TESTS_STREAM_PREFIX)) return [];
    const repoId = recorded.streamId.slice(TESTS_STREAM_PREFIX.length);
    switch (recorded.type) {
      case 'TestResultsUploaded': {
        const data = recorded.data as TestResultsUploaded['data'];
        const known = 'inline' in data.cases ? data.cases.inline : cases;
        if (known) this.upload(repoId, data, known);
        return [];
      }
      case 'TestStatusChanged': {
        const data = recorded.data as TestStatusChanged['data'];
        const test = this.test(repoId, data.testId);
        test.status = { status: data.status, reason: data.reason, since: data.since };
        test.corroborated = data.corroborated ?? false;
        test.impacted7d = data.pullRequestsImpactedLast7d;
        return [
          this.message(repoId, data.testId, test, data.at, 'test_case.status_changed', {
            status_change: {
              previous_status: statusOf(data.previous.status),
              current_status: { value: statusOf(data.status), reason: data.reason, timestamp: data.since },
            },
          }),
        ];
      }
      case 'TestImpactChanged': {
        const data = recorded.data as TestImpactChanged['data'];
        this.test(repoId, data.testId).impacted7d = data.pullRequestsImpactedLast7d;
        return [];
      }
      case 'TestTicketLinked': {
        const data = recorded.data as TestTicketLinked['data'];
        const test = this.test(repoId, data.testId);
        if (data.htmlUrl) test.ticketUrl = data.htmlUrl;
        else delete test.ticketUrl;
        return [];
      }
      case 'QuarantineOverrideSet': {
        const data = recorded.data as QuarantineOverrideSet['data'];
        const test = this.test(repoId, data.testId);
        test.override = data.override;
        // The event names no person beyond the actor that recorded it (a token's name); Trunk's email has nothing to say.
        return [
          this.message(repoId, data.testId, test, data.at, 'test_case.quarantining_setting_changed', {
            quarantine_setting_changed: {
              actor: { full_name: recorded.metadata.actor, email: '' },
              reason: data.reason ?? null,
              timestamp: data.at,
              previous_quarantining_setting: settingOf(data.previous),
              updated_quarantining_setting: settingOf(data.override),
            },
          }),
        ];
      }
      default:
        return [];
    }
  }

  private test(repoId: string, testId: string): TestCase {
    const key = `${repoId}#${testId}`;
    let test = this.tests.get(key);
    if (!test) {
      test = {
        classname: '',
        file: '',
        parent: '',
        variant: '',
        hours: new Map(),
        failures: [],
        status: { status: 'HEALTHY', reason: '', since: '' },
        corroborated: false,
        override: null,
        impacted7d: 0,
      };
      this.tests.set(key, test);
    }
    return test;
  }

  private upload(repoId: string, data: TestResultsUploaded['data'], cases: readonly CaseRecord[]): void {
    // An outage upload (most of its tests failed at once) says nothing about a test: the read side leaves it out of the rates too.
    const counts = !isOutageUpload(data.stats, DEFAULT_CLASSIFICATION_RULES.outageGuard);
    const hour = Math.floor(Date.parse(data.at) / HOUR_MS);
    for (const c of cases) {
      const test = this.test(repoId, c.id);
      Object.assign(test, { name: c.name, classname: c.classname, file: c.file, parent: c.parent, variant: c.variant });
      if (counts && c.outcome !== 'skipped') {
        const bucket = test.hours.get(hour) ?? { runs: 0, failed: 0 };
        bucket.runs += 1;
        if (c.outcome === 'failed') bucket.failed += 1;
        test.hours.set(hour, bucket);
        for (const h of test.hours.keys()) if (h <= hour - WINDOW_HOURS) test.hours.delete(h);
      }
      if (c.outcome === 'failed' || c.outcome === 'flaky')
        test.failures = tallyFailure(test.failures, failureSummary(c.failureMessage), data.at);
    }
  }

  private rate(test: TestCase, at: string, hours: number): number {
    const now = Math.floor(Date.parse(at) / HOUR_MS);
    let runs = 0;
    let failed = 0;
    for (const [h, b] of test.hours)
      if (h > now - hours && h <= now) {
        runs += b.runs;
        failed += b.failed;
      }
    return runs === 0 ? 0 : failed / runs;
  }

  private message(
    repoId: string,
    testId: string,
    test: TestCase,
    at: string,
    type: Unaddressed['type'],
    extra: Record<string, unknown>,
  ): Unaddressed {
    const [host = '', owner = '', name = ''] = repoId.split('~').map(decodeURIComponent);
    const status = test.status.since
      ? { value: statusOf(test.status.status), reason: test.status.reason, timestamp: test.status.since }
      : { value: 'healthy', reason: '', timestamp: at };
    const testCase: Record<string, unknown> = {
      id: testId,
      repository: { html_url: this.links.repository({ host, owner, name }) },
      html_url: this.links.test({ host, owner, name }, testId),
      // A test only known from an upload whose cases could not be read is named by its id.
      name: test.name ?? testId,
      variant: test.variant,
      status,
      most_common_failures: mostCommonFailures(test.failures),
      failure_rate_last_7d: this.rate(test, at, WINDOW_HOURS),
      failure_rate_last_24h: this.rate(test, at, 24),
      codeowners: [],
      pull_requests_impacted_last_7d: test.impacted7d,
      quarantined: isQuarantined({ status: test.status.status, corroborated: test.corroborated }, test.override ?? undefined),
      ...(test.file ? { file_path: test.file } : {}),
      ...(test.parent ? { parent: test.parent } : {}),
      ...(test.classname ? { classname: test.classname } : {}),
      ...(test.ticketUrl ? { ticket: { html_url: test.ticketUrl } } : {}),
    };
    return { type, payload: { type, test_case: testCase, ...extra }, repo: { host, owner, name }, targetBranch: '' };
  }
}

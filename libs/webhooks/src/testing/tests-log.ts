import type { RecordedEvent } from '@railyard/eventstore';
import { testsStreamOf, type CaseRecord, type CasesRef, type TestHealthEvent } from '@railyard/testhealth';
import { REPO } from './log';

export const TEST_ID = '0b5a8f6e-0f3a-5c55-9d1e-6b2f0c7c1a11';

type Data<T extends TestHealthEvent['type']> = Omit<Extract<TestHealthEvent, { type: T }>['data'], 'at'>;

/** A repository's test-health log written by hand: one event per `add`, an hour apart from `start`. */
export class TestsLogBuilder {
  readonly events: RecordedEvent[] = [];
  constructor(private readonly start = Date.UTC(2026, 11, 1, 0, 0)) {}

  add<T extends TestHealthEvent['type']>(type: T, data: Data<T>, hoursLater = this.events.length): this {
    const n = this.events.length;
    const at = new Date(this.start + hoursLater * 3_600_000).toISOString();
    this.events.push({
      streamId: testsStreamOf(REPO),
      revision: n,
      position: BigInt(n + 1),
      eventId: `tev-${n + 1}`,
      type,
      data: { ...data, at },
      metadata: { schemaVersion: 1, actor: 'admin-token', correlationId: 'c', at },
      recordedAt: at,
    });
    return this;
  }

  /** The one test's status change from healthy to `status`, with `corroborated` (FLAKY is then quarantined). */
  statusChanged(
    status: 'FLAKY' | 'BROKEN',
    o: { reason?: string; impacted?: number; corroborated?: boolean; hoursLater?: number } = {},
  ): this {
    return this.add(
      'TestStatusChanged',
      {
        repo: REPO,
        testId: TEST_ID,
        status,
        reason: o.reason ?? 'failure_rate: 2 of 4 runs failed',
        since: new Date(this.start + 3 * 3_600_000).toISOString(),
        previous: { status: 'HEALTHY', reason: '', since: new Date(this.start).toISOString() },
        monitors: [],
        pullRequestsImpactedLast7d: o.impacted ?? 0,
        basis: { revision: this.events.length - 1 },
        ...(o.corroborated !== undefined ? { corroborated: o.corroborated } : {}),
      },
      o.hoursLater,
    );
  }

  /** An upload of the one test with `outcome`, its cases inline or, with `blob`, named by a digest only. */
  upload(outcome: CaseRecord['outcome'], o: { failure?: string; blob?: string; hoursLater?: number; testCount?: number } = {}): this {
    const cases: CasesRef = o.blob ? { digest: o.blob, count: 1, encoding: 'json+gzip' } : { inline: [caseOf(outcome, o.failure)] };
    return this.add(
      'TestResultsUploaded',
      {
        uploadId: `u${this.events.length}`,
        repo: REPO,
        orgSlug: 'acme',
        branch: 'main',
        commitSha: 'c1',
        files: [],
        stats: { testCount: o.testCount ?? 1, failedCount: outcome === 'failed' ? 1 : 0 },
        caseCount: 1,
        warnings: [],
        suiteFailures: [],
        cases,
      },
      o.hoursLater,
    );
  }
}

export const caseOf = (outcome: CaseRecord['outcome'], failure?: string): CaseRecord => ({
  id: TEST_ID,
  name: 'charges the card',
  classname: 'CheckoutTest',
  file: 'test/checkout.test.ts',
  parent: 'checkout',
  variant: '',
  outcome,
  durationMs: 12,
  ...(failure ? { failureMessage: failure } : {}),
});

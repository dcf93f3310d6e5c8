import type { RecordedEvent } from '@railyard/eventstore';
import {
  isQuarantined,
  uploaderOf,
  type CaseRecord,
  type QuarantineOverrideSet,
  type TestHealthEvent,
  type TestImpactChanged,
  type TestResultsUploaded,
  type TestStatusChanged,
  type TestTicketLinked,
  failureSummary,
  tallyFailure,
} from '@railyard/testhealth';
import { newTestDoc, type RunEntry, type StoredTest, type TestDoc, type UploadMeta } from './docs';

/** What one upload does to one test: its new document and, unless it was skipped, one more run. */
export interface TestWrite {
  before: TestDoc | null;
  after: TestDoc;
  run?: RunEntry;
}

const withReporter = (reporter: string | undefined): { reporter?: string } => (reporter !== undefined ? { reporter } : {});

export const uploadMetaOf = (revision: number, data: TestResultsUploaded['data']): UploadMeta => ({
  revision,
  at: data.at,
  commitSha: data.commitSha,
  ...(data.treeSha ? { treeSha: data.treeSha } : {}),
  branch: data.branch,
  ...(data.prNumber !== undefined ? { prNumber: data.prNumber } : {}),
  ...(data.ciJob ? { ciJob: data.ciJob } : {}),
  ...withReporter(uploaderOf(data)),
  testCount: data.stats.testCount,
  failedCount: data.stats.failedCount,
});

/** Recomputes the derived quarantine flag; quarantinedAt is when it last turned on. */
const withQuarantine = (doc: TestDoc, at: string): TestDoc => {
  const quarantined = isQuarantined(doc, doc.override ?? undefined);
  if (quarantined === doc.quarantined) return doc;
  return { ...doc, quarantined, quarantinedAt: quarantined ? at : null };
};

const isFresh = (stored: StoredTest | null, event: RecordedEvent): boolean => !stored || stored.pos < event.position;

/**
 * Folds one upload into the tests it names. `stored` answers the current document of a test (null
 * when unknown); tests already past this event (a replay) are left out of the result.
 */
export const foldUpload = (
  event: RecordedEvent,
  cases: readonly CaseRecord[],
  stored: (testId: string) => StoredTest | null,
): TestWrite[] => {
  const data = event.data as TestResultsUploaded['data'];
  const repoId = event.streamId.slice('tests-'.length);
  const writes: TestWrite[] = [];
  for (const c of cases) {
    const current = stored(c.id);
    if (!isFresh(current, event)) continue;
    const before = current?.doc ?? null;
    const base =
      before ??
      newTestDoc(
        { repo: data.repo, repoId, id: c.id, name: c.name, classname: c.classname, file: c.file, parent: c.parent, variant: c.variant },
        data.at,
      );
    const failed = c.outcome === 'failed' || c.outcome === 'flaky';
    const after: TestDoc = {
      ...base,
      lastSeenAt: data.at,
      ...(failed ? { lastFailedAt: data.at, failures: tallyFailure(base.failures ?? [], failureSummary(c.failureMessage), data.at) } : {}),
      ...(c.outcome !== 'skipped' ? { lastRevision: Math.max(base.lastRevision, event.revision) } : {}),
    };
    writes.push(c.outcome === 'skipped' ? { before, after } : { before, after, run: { revision: event.revision, outcome: c.outcome } });
  }
  return writes;
};

const isNewer = (doc: TestDoc, basis: { revision: number }, at: string): boolean =>
  doc.basis === null || basis.revision > doc.basis.revision || (basis.revision === doc.basis.revision && at > doc.basis.at);

/** The test id a single-test event is about, or undefined for an upload. */
export const testIdOfEvent = (event: RecordedEvent): string | undefined => {
  if (event.type === 'TestResultsUploaded') return undefined;
  const id = (event.data as { testId?: unknown } | null)?.testId;
  return typeof id === 'string' ? id : undefined;
};

/**
 * Folds a single-test event (status, impact, override, ticket). Null when it changes nothing: an
 * unknown test, a replay, or an evaluation older than the one the document already stands on.
 */
export const foldTestEvent = (stored: StoredTest | null, event: RecordedEvent): TestDoc | null => {
  if (!stored || !isFresh(stored, event)) return null;
  const doc = stored.doc;
  const e = { type: event.type, data: event.data } as TestHealthEvent;
  switch (e.type) {
    case 'TestStatusChanged': {
      const d: TestStatusChanged['data'] = e.data;
      if (!isNewer(doc, d.basis, d.at)) return null;
      const changed = d.status !== doc.status || d.reason !== doc.reason || d.since !== doc.since;
      return withQuarantine(
        {
          ...doc,
          status: d.status,
          reason: d.reason,
          since: d.since,
          monitors: d.monitors,
          pullRequestsImpactedLast7d: d.pullRequestsImpactedLast7d,
          // Absent in events from before the rule: unknown counts as not corroborated until re-evaluated.
          corroborated: d.corroborated === true,
          statusUpdatedAt: changed ? d.at : doc.statusUpdatedAt,
          basis: { revision: d.basis.revision, at: d.at },
        },
        d.at,
      );
    }
    case 'TestImpactChanged': {
      const d: TestImpactChanged['data'] = e.data;
      if (!isNewer(doc, d.basis, d.at)) return null;
      return { ...doc, pullRequestsImpactedLast7d: d.pullRequestsImpactedLast7d, basis: { revision: d.basis.revision, at: d.at } };
    }
    case 'QuarantineOverrideSet': {
      const d: QuarantineOverrideSet['data'] = e.data;
      return withQuarantine({ ...doc, override: d.override, overrideAt: d.at, overrideBy: event.metadata.actor }, d.at);
    }
    case 'TestTicketLinked': {
      const d: TestTicketLinked['data'] = e.data;
      return { ...doc, ticketUrl: d.htmlUrl };
    }
    default:
      return null;
  }
};

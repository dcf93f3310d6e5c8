import { formatRepo, type RepoRef } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import type { CommitStatus, CommitStatusInput } from './port';

/**
 * Commit statuses as events (docs/ci.md, "Commit statuses"; docs/decisions.md D180): one stream per
 * repository and commit, one event per report. A stream is only ever appended to, so writers from any
 * number of processes append with no expected revision and none of them can lose another's report.
 */
export const STATUS_STREAM_PREFIX = 'commit-status-';
export const COMMIT_STATUS_REPORTED = 'CommitStatusReported';
export const STATUS_SCHEMA_VERSION = 1;

export interface CommitStatusReported extends CommitStatusInput {
  repo: RepoRef;
  sha: string;
}

/** `commit-status-<host>/<owner>/<name>@<sha>`: the parts are validated names, so the id is unambiguous. */
export const statusStreamOf = (repo: RepoRef, sha: string): string => `${STATUS_STREAM_PREFIX}${formatRepo(repo)}@${sha}`;

/** The report an event carries, or undefined for every other event of the store. */
export const reportOf = (e: RecordedEvent): CommitStatusReported | undefined =>
  e.type === COMMIT_STATUS_REPORTED && e.streamId.startsWith(STATUS_STREAM_PREFIX) ? (e.data as CommitStatusReported) : undefined;

/**
 * The latest status per context, in the order contexts first reported: `initial` (statuses an older
 * version left in a file, D182) first, then the stream's reports in stream order. A context keeps the
 * time of its first report as createdAt; each later report replaces the rest.
 */
export const foldStatuses = (initial: readonly CommitStatus[], events: readonly RecordedEvent[]): CommitStatus[] =>
  fold(initial, events, (s) => s.context, false);

/**
 * The latest status per context and reporter (a report without one, such as every report recorded
 * before reporters were, counts as one unknown reporter), ordered by when each was last reported.
 */
export const foldReports = (initial: readonly CommitStatus[], events: readonly RecordedEvent[]): CommitStatus[] =>
  fold(initial, events, (s) => `${s.context}\0${s.reporter ?? ''}`, true);

const fold = (
  initial: readonly CommitStatus[],
  events: readonly RecordedEvent[],
  keyOf: (s: { context: string; reporter?: string }) => string,
  latestLast: boolean,
): CommitStatus[] => {
  const byKey = new Map<string, CommitStatus>(initial.map((s) => [keyOf(s), s]));
  for (const e of events) {
    const report = reportOf(e);
    if (!report) continue;
    const at = e.metadata.at;
    const { context, state, targetUrl, description, reporter } = report;
    const key = keyOf(report);
    const createdAt = byKey.get(key)?.createdAt ?? at;
    // A Map keeps a key where it was first set: deleted first, it moves to the end.
    if (latestLast) byKey.delete(key);
    byKey.set(key, {
      context,
      state,
      ...(targetUrl !== undefined ? { targetUrl } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(reporter !== undefined ? { reporter } : {}),
      createdAt,
      updatedAt: at,
    });
  }
  return [...byKey.values()];
};

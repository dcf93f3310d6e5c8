import {
  caseRecordsOf,
  combineAttemptReports,
  encodeCases,
  JUnitParseError,
  MAX_RECORDED_SUITE_FAILURES,
  parseJUnit,
  uniqueById,
  uploadStatsOf,
  type CaseRecord,
  type JUnitParseErrorCode,
  type ParsedJUnit,
  type ParseWarning,
  type RepoRef,
  type SuiteFailure,
  type UploadStats,
} from '@railyard/testhealth';

export interface ParseTask {
  files: { name: string; bytes: Uint8Array }[];
  orgSlug: string;
  repo: RepoRef;
  variant?: string;
  /** Cap per file on the bytes received and on the inflated XML. */
  maxFileBytes: number;
}

export interface ParsedUpload {
  inline?: CaseRecord[];
  /** Gzip JSON of the cases, for the blob store, when too large to ride in the event. */
  blob?: Uint8Array;
  caseCount: number;
  stats: UploadStats;
  warnings: ParseWarning[];
  suiteFailures: SuiteFailure[];
  /** Ids whose run ended failed or flaky, and those that passed: the evaluator's candidates. */
  failingIds: string[];
  passedIds: string[];
}

export type ParseOutcome = { ok: true; upload: ParsedUpload } | { ok: false; code: JUnitParseErrorCode; message: string };

/**
 * Everything CPU-bound about an upload, run in a worker thread: parse each file, fold the files as
 * successive attempts (a test that failed in one and passed in a later one is flaky), compute ids
 * and encode the case list.
 */
export const runParseTask = (task: ParseTask): ParseOutcome => {
  const reports: ParsedJUnit[] = [];
  for (const file of task.files) {
    try {
      reports.push(
        parseJUnit(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength), {
          maxInputBytes: task.maxFileBytes,
          maxXmlBytes: task.maxFileBytes,
          ...(task.variant ? { variant: task.variant } : {}),
        }),
      );
    } catch (err) {
      if (!(err instanceof JUnitParseError)) throw err;
      const where = err.position ? ` (line ${err.position.line}, column ${err.position.column})` : '';
      return { ok: false, code: err.code, message: `${file.name}: ${err.message}${where}` };
    }
  }
  const combined = reports.length === 1 ? (reports[0] as ParsedJUnit) : combineAttemptReports(reports);
  const records = uniqueById(caseRecordsOf(combined.cases, { orgSlug: task.orgSlug, repo: task.repo }));
  const encoded = encodeCases(records);
  const failingIds: string[] = [];
  const passedIds: string[] = [];
  for (const r of records) {
    if (r.outcome === 'failed' || r.outcome === 'flaky') failingIds.push(r.id);
    else if (r.outcome === 'passed') passedIds.push(r.id);
  }
  return {
    ok: true,
    upload: {
      ...(encoded.inline ? { inline: encoded.inline } : {}),
      // A copy owning its memory: it is transferred out of the worker, and zlib may have used the shared pool.
      ...(encoded.blob ? { blob: new Uint8Array(encoded.blob) } : {}),
      caseCount: records.length,
      stats: uploadStatsOf(combined.cases),
      warnings: combined.warnings,
      suiteFailures: combined.suiteFailures.slice(0, MAX_RECORDED_SUITE_FAILURES),
      failingIds,
      passedIds,
    },
  };
};

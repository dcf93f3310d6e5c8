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
  /**
   * Caps over all the files of the upload together: test cases (a case retried within one report
   * counts once) and inflated XML. Many small reports then cost no more than one large one.
   */
  maxUploadCases: number;
  maxUploadXmlBytes: number;
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

/** The upload as a whole is past a cap: said so, with the file where it went over. */
const overBudget = (task: ParseTask, code: 'TOO_MANY_CASES' | 'TOO_LARGE', file: string): ParseOutcome => ({
  ok: false,
  code,
  message:
    code === 'TOO_MANY_CASES'
      ? `the upload holds more than ${task.maxUploadCases} test cases in all its files together (passed at ${file}); upload the reports in several parts`
      : `the upload's reports inflate to more than ${task.maxUploadXmlBytes} bytes of XML together (passed at ${file}); upload them in several parts`,
});

/**
 * Everything CPU-bound about an upload, run in a worker thread: parse each file, fold the files as
 * successive attempts (a test that failed in one and passed in a later one is flaky), compute ids
 * and encode the case list.
 */
export const runParseTask = (task: ParseTask): ParseOutcome => {
  const reports: ParsedJUnit[] = [];
  let cases = 0;
  let xmlBytes = 0;
  for (const file of task.files) {
    // Each file gets what the files before it left of the upload's budget, so parsing stops at the first file past it.
    const casesLeft = task.maxUploadCases - cases;
    const xmlLeft = Math.min(task.maxFileBytes, task.maxUploadXmlBytes - xmlBytes);
    if (casesLeft < 1) return overBudget(task, 'TOO_MANY_CASES', file.name);
    if (xmlLeft < 1) return overBudget(task, 'TOO_LARGE', file.name);
    try {
      const report = parseJUnit(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength), {
        maxInputBytes: task.maxFileBytes,
        maxXmlBytes: xmlLeft,
        maxCases: casesLeft,
        ...(task.variant ? { variant: task.variant } : {}),
      });
      reports.push(report);
      cases += report.cases.length;
      xmlBytes += report.xmlBytes;
    } catch (err) {
      if (!(err instanceof JUnitParseError)) throw err;
      if (err.code === 'TOO_MANY_CASES' || (err.code === 'TOO_LARGE' && xmlLeft < task.maxFileBytes))
        return overBudget(task, err.code, file.name);
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

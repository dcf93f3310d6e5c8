export {
  caseRecordsOf,
  uniqueById,
  encodeCases,
  decodeCasesBlob,
  casesOf,
  INLINE_CASES_MAX_BYTES,
  testIdOfReported,
  type EncodedCases,
  type ReportedFailure,
} from './case-records';
export { failureSummary, tallyFailure, mostCommonFailures, FAILURES_KEPT, FAILURES_SHOWN, type FailureCount } from './failure-tally';

export { JUnitParseError, type JUnitParseErrorCode } from './errors';
export { DEFAULT_JUNIT_LIMITS } from './limits';
export { parseJUnit, combineAttemptReports } from './parse';
export { uploadStatsOf, type UploadStats } from './upload-stats';
export type {
  CaseStatus,
  FailureKind,
  ParsedJUnit,
  ParseJUnitOptions,
  ParseWarning,
  ParseWarningCode,
  SuiteFailure,
  TestCaseResult,
} from './types';

export type { TestRunReadModel } from './port';
export type {
  TestRunView,
  TestRunPr,
  TestRunReportedStatus,
  TestRunOutcome,
  TestRunStatus,
  TestRunDoc,
  PrTargetsDoc,
} from './projection/docs';
export { foldTestRuns, testRunRefsOf, testRunKeyOf, type TestRunDocSet, type TestRunRefs, type TestRunChanges } from './projection/project';

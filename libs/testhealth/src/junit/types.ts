/**
 * Outcome of one test case in one report. `flaky` means it failed at least once and its last
 * attempt in this report passed (Surefire flakyFailure, gotestsum --rerun-fails, Gradle retries).
 */
export type CaseStatus = 'passed' | 'failed' | 'skipped' | 'flaky';

export type FailureKind = 'failure' | 'error';

export interface TestCaseResult {
  name: string;
  /** '' when the report has none. */
  classname: string;
  /** Repo-relative path with `/` separators; '' when unknown. */
  file: string;
  /** Name of the innermost enclosing testsuite; '' when the case sits outside any suite. */
  parent: string;
  /** '' when none. */
  variant: string;
  status: CaseStatus;
  /** Sum over every attempt of this case in the report. */
  durationMs: number;
  /** Attempts that ran (skipped ones excluded). */
  attempts: number;
  failedAttempts: number;
  /** Kind of the last failed attempt, if any attempt failed. */
  failureKind?: FailureKind;
  /** Message of the last failed attempt, truncated to maxMessageLength. */
  failureMessage?: string;
  line?: number;
  /** The testcase `id` attribute; feeds testIdOf's explicit-id rule. */
  explicitId?: string;
  /** Timestamp as written by the runner (testcase, else enclosing suite). */
  startedAt?: string;
}

/** A failure reported on a suite rather than on a case (setup crash, compile error). */
export interface SuiteFailure {
  parent: string;
  kind: FailureKind;
  message: string;
}

export type ParseWarningCode = 'FIELD_TRUNCATED' | 'NO_TEST_CASES' | 'MISSING_FILE' | 'SUITE_FAILURE';

export interface ParseWarning {
  code: ParseWarningCode;
  message: string;
}

export interface ParsedJUnit {
  cases: TestCaseResult[];
  /**
   * Failures no case accounts for. A CI job with any of these failed for a reason outside the
   * test cases, so quarantine must never turn it green.
   */
  suiteFailures: SuiteFailure[];
  warnings: ParseWarning[];
  /** The report's size as XML (after gunzip), so a caller can cap several reports together. */
  xmlBytes: number;
}

export interface ParseJUnitOptions {
  /** Cap on the bytes received (compressed or not). Default 32 MiB. */
  maxInputBytes?: number;
  /** Cap on the XML size after decompression. Default 32 MiB. */
  maxXmlBytes?: number;
  /** Cap on element nesting. Default 64. */
  maxDepth?: number;
  /** Cap on testcase elements (before duplicates are merged). Default 100,000. */
  maxCases?: number;
  /** Cap on name, classname, parent, file and variant, in characters. Default 1,000. */
  maxFieldLength?: number;
  /** Cap on failure messages, in characters. Default 1,000. */
  maxMessageLength?: number;
  /** Variant for cases that do not name one in a `variant` property (the uploader's --variant). */
  variant?: string;
  /** Stripped from absolute file paths (the checkout directory on the CI machine). */
  repoRoot?: string;
  /** Prepended to relative file paths: runners started in a package directory write package-relative paths. */
  filePathPrefix?: string;
}

import { xmlTextOf } from './bytes';
import { JUnitParseError } from './errors';
import { limitsOf } from './limits';
import { mergeByIdentity } from './merge';
import { assertNoEntityDeclarations } from './prolog';
import type { ParsedJUnit, ParseJUnitOptions, ParseWarning, TestCaseResult } from './types';
import { walkReport } from './walk';
import { parseXml } from './xml';

const ROOTS = new Set(['testsuites', 'testsuite']);

function warningsOf(cases: readonly TestCaseResult[], suiteFailures: number, truncatedFields: number): ParseWarning[] {
  const warnings: ParseWarning[] = [];
  if (cases.length === 0) {
    // An empty report usually means the build failed before any test ran: never read it as "all passed".
    warnings.push({ code: 'NO_TEST_CASES', message: 'the report holds no test cases' });
  }
  const withoutFile = cases.filter((c) => c.file === '').length;
  if (withoutFile > 0) {
    warnings.push({ code: 'MISSING_FILE', message: `${withoutFile} test case(s) have no file; code owners cannot be resolved for them` });
  }
  if (truncatedFields > 0) {
    warnings.push({ code: 'FIELD_TRUNCATED', message: `${truncatedFields} name field(s) were longer than the limit and were truncated` });
  }
  if (suiteFailures > 0) {
    warnings.push({ code: 'SUITE_FAILURE', message: `${suiteFailures} failure(s) are reported on a suite, not on a test case` });
  }
  return warnings;
}

/**
 * Parses one JUnit XML report (plain or gzip) from any common producer into one result per test
 * case. Retries inside the report are merged: a case that failed and then passed is `flaky`.
 * Throws JUnitParseError for anything it will not read.
 */
export function parseJUnit(bytes: Buffer, opts: ParseJUnitOptions = {}): ParsedJUnit {
  const limits = limitsOf(opts);
  const { text: xml, bytes: xmlBytes } = xmlTextOf(bytes, limits);
  if (!xml.trimStart().startsWith('<')) throw new JUnitParseError('NOT_JUNIT', 'the input is not XML');
  assertNoEntityDeclarations(xml);
  const document = parseXml(xml, limits);
  const roots = Object.keys(document);
  const rootTag = roots[0];
  if (roots.length !== 1 || rootTag === undefined || !ROOTS.has(rootTag)) {
    throw new JUnitParseError(
      'NOT_JUNIT',
      `expected a <testsuites> or <testsuite> root element, found ${roots.map((r) => `<${r}>`).join(', ') || 'none'}`,
    );
  }
  const walked = walkReport(document, limits, opts);
  const cases = mergeByIdentity(walked.elements, 'timestamp');
  return {
    cases,
    suiteFailures: walked.suiteFailures,
    warnings: warningsOf(cases, walked.suiteFailures.length, walked.truncatedFields),
    xmlBytes,
  };
}

/**
 * Combines reports of successive attempts of the same tests (Bazel's test_attempts/attempt_N.xml,
 * or a CI job retried within one run), oldest first: a test that failed in one attempt and passed
 * in a later one becomes `flaky`.
 */
export function combineAttemptReports(reports: readonly ParsedJUnit[]): ParsedJUnit {
  const cases = mergeByIdentity(
    reports.flatMap((r) => r.cases),
    'input',
  );
  const suiteFailures = reports.flatMap((r) => r.suiteFailures);
  const xmlBytes = reports.reduce((sum, r) => sum + r.xmlBytes, 0);
  return { cases, suiteFailures, warnings: warningsOf(cases, suiteFailures.length, 0), xmlBytes };
}

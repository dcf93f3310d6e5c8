import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { JUnitParseError } from './errors';
import { limitsOf } from './limits';
import { combineAttemptReports, parseJUnit } from './parse';
import type { ParsedJUnit, TestCaseResult } from './types';
import { uploadStatsOf } from './upload-stats';
import { parseXml } from './xml';

const fixture = (name: string): Buffer => readFileSync(join(__dirname, '..', '..', 'fixtures', name));

function caseNamed(report: ParsedJUnit, name: string): TestCaseResult {
  const found = report.cases.find((c) => c.name === name);
  if (!found) throw new Error(`no case named ${name}; have ${report.cases.map((c) => c.name).join(', ')}`);
  return found;
}

function parseError(run: () => unknown): JUnitParseError {
  try {
    run();
  } catch (err) {
    if (err instanceof JUnitParseError) return err;
    throw err;
  }
  throw new Error('expected a JUnitParseError');
}

const xml = (body: string): Buffer => Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);

describe('parseJUnit: producers', () => {
  it('when given a jest-junit report, then each case keeps its file, suite and outcome and entities are decoded', () => {
    // given
    const bytes = fixture('jest-junit.xml');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(report.cases).toHaveLength(4);
    const failed = caseNamed(report, 'cart totals applies a discount & rounds');
    expect(failed).toMatchObject({
      classname: 'cart totals applies a discount & rounds',
      file: 'src/cart/totals.test.ts',
      parent: 'cart totals',
      status: 'failed',
      failureKind: 'failure',
      durationMs: 12,
      attempts: 1,
      failedAttempts: 1,
      startedAt: '2026-03-02T10:15:00',
    });
    expect(failed.failureMessage).toContain('Expected: 90');
    expect(failed.failureMessage).toContain('Object.<anonymous>');
    expect(caseNamed(report, 'cart totals handles currency').status).toBe('skipped');
    expect(caseNamed(report, 'cart totals sums taxes')).toMatchObject({ status: 'passed', durationMs: 781 });
    expect(report.warnings).toEqual([]);
  });

  it('when given a pytest xunit1 report, then parametrized names, lines, errors and skips are kept apart', () => {
    // given
    const bytes = fixture('pytest-xunit1.xml');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(caseNamed(report, 'test_round[1.005-1.01]')).toMatchObject({ status: 'passed', file: 'tests/test_pricing.py', line: 12 });
    expect(caseNamed(report, 'test_round[2.5-2.5]')).toMatchObject({ status: 'failed', failureKind: 'failure' });
    expect(caseNamed(report, 'test_round[2.5-2.5]').failureMessage).toMatch(/^AssertionError: assert 2.4 == 2.5\n/);
    const setupError = caseNamed(report, 'test_eur');
    expect(setupError).toMatchObject({ status: 'failed', failureKind: 'error', classname: 'tests.test_pricing.TestCurrency' });
    expect(setupError.failureMessage).toContain('failed on setup with "ConnectionRefusedError');
    expect(caseNamed(report, 'test_future').status).toBe('skipped');
    expect(caseNamed(report, 'test_known_bug').status).toBe('skipped');
    expect(caseNamed(report, 'test_total')).toMatchObject({ status: 'passed', parent: 'pytest', durationMs: 205 });
  });

  it('when given a pytest xunit2 report without file attributes, then cases have an empty file and a warning says so', () => {
    // given
    const bytes = fixture('pytest-xunit2.xml');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(report.cases.map((c) => c.file)).toEqual(['', '']);
    expect(report.warnings.map((w) => w.code)).toEqual(['MISSING_FILE']);
  });

  it('when given a Surefire report with flaky and rerun elements, then flaky and failed cases count their attempts', () => {
    // given
    const bytes = fixture('surefire-reruns.xml');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(caseNamed(report, 'createsOrder')).toMatchObject({ status: 'passed', attempts: 1, failedAttempts: 0 });
    const reserves = caseNamed(report, 'reservesStock');
    expect(reserves).toMatchObject({
      status: 'flaky',
      attempts: 2,
      failedAttempts: 1,
      failureKind: 'failure',
      parent: 'com.acme.orders.OrderServiceTest',
    });
    expect(reserves.failureMessage).toMatch(/^expected: <3> but was: <2>/);
    const refunds = caseNamed(report, 'refundsPayment');
    expect(refunds).toMatchObject({ status: 'failed', attempts: 3, failedAttempts: 3, failureKind: 'error' });
    expect(refunds.failureMessage).toMatch(/^Connection reset/);
    expect(caseNamed(report, 'cancelsOrder')).toMatchObject({ status: 'flaky', attempts: 3, failedAttempts: 2, failureKind: 'failure' });
    expect(caseNamed(report, 'archivesOrder')).toMatchObject({ status: 'skipped', attempts: 0 });
  });

  it('when given a Gradle report with unmerged reruns, then the duplicate testcases become one flaky case', () => {
    // given
    const bytes = fixture('gradle-unmerged-reruns.xml');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(report.cases).toHaveLength(2);
    expect(caseNamed(report, 'issuesInvoice()')).toMatchObject({ status: 'flaky', attempts: 2, failedAttempts: 1, durationMs: 550 });
    expect(caseNamed(report, 'voidsInvoice()').status).toBe('passed');
  });

  it('when given a gotestsum report with --rerun-fails duplicates, then reruns merge, subtests stay separate and package failures are kept', () => {
    // given
    const bytes = fixture('gotestsum-rerun.xml');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(report.cases.map((c) => c.name)).toEqual(['TestAdd', 'TestCheckout/with_coupon', 'TestCheckout', 'TestRemove', 'TestMain']);
    const sub = caseNamed(report, 'TestCheckout/with_coupon');
    expect(sub).toMatchObject({
      status: 'flaky',
      attempts: 2,
      classname: 'example.com/shop/cart',
      parent: 'example.com/shop/cart',
      durationMs: 22,
    });
    expect(sub.failureMessage).toContain('checkout_test.go:40: got 9, want 10');
    expect(caseNamed(report, 'TestRemove').status).toBe('skipped');
    expect(caseNamed(report, 'TestMain')).toMatchObject({ status: 'failed', classname: '', parent: 'example.com/shop/db' });
  });

  it('when given a report Bazel generated for a failing target, then the target is one failed case named after its label', () => {
    // given
    const bytes = fixture('bazel-generated.xml');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(report.cases).toEqual([
      expect.objectContaining({
        name: '//services/payments:payments_test',
        parent: '//services/payments:payments_test',
        status: 'failed',
        failureKind: 'error',
        failureMessage: 'exited with error code 1',
        durationMs: 12_000,
      }),
    ]);
  });

  it('when a case is marked notrun, then it is skipped, and the suite file is inherited', () => {
    // given
    const bytes = fixture('bazel-notrun.xml');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(caseNamed(report, 'Adds')).toMatchObject({ status: 'passed', file: 'cc/math_test.cc' });
    expect(caseNamed(report, 'DISABLED_Divides').status).toBe('skipped');
  });

  it('when Bazel attempt reports are combined oldest first, then a target that failed then passed is flaky', () => {
    // given
    const attempt1 = parseJUnit(fixture('bazel-generated.xml'));
    const attempt2 = parseJUnit(
      xml(
        '<testsuites><testsuite name="//services/payments:payments_test"><testcase name="//services/payments:payments_test" status="run" time="11"/></testsuite></testsuites>',
      ),
    );
    // when
    const combined = combineAttemptReports([attempt1, attempt2]);
    // then
    expect(combined.cases).toEqual([
      expect.objectContaining({
        status: 'flaky',
        attempts: 2,
        failedAttempts: 1,
        failureMessage: 'exited with error code 1',
        durationMs: 23_000,
      }),
    ]);
  });

  it('when suites nest, then parent is the innermost suite and file and variant are inherited or read from properties', () => {
    // given
    const bytes = fixture('nested-suites.xml');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(caseNamed(report, 'top level')).toMatchObject({ parent: 'outer', file: 'spec/outer_spec.rb', variant: 'ruby-3.3' });
    expect(caseNamed(report, 'deep')).toMatchObject({
      parent: 'inner',
      file: 'spec/inner_spec.rb',
      variant: 'ruby-3.3',
      startedAt: '2026-03-02T12:00:00Z',
    });
    expect(caseNamed(report, 'inherits file')).toMatchObject({ parent: 'inner', file: 'spec/outer_spec.rb' });
  });

  it('when a suite itself reports an error, then it is returned as a suite failure with a warning', () => {
    // given
    const bytes = fixture('nested-suites.xml');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(report.suiteFailures).toEqual([{ parent: 'crashed', kind: 'error', message: 'suite setup failed: database unavailable' }]);
    expect(report.warnings.map((w) => w.code)).toContain('SUITE_FAILURE');
  });

  it('when the report holds no cases, then the result is empty and a warning says so', () => {
    // given
    const bytes = xml('<testsuites name="none"/>');
    // when
    const report = parseJUnit(bytes);
    // then
    expect(report.cases).toEqual([]);
    expect(report.warnings.map((w) => w.code)).toEqual(['NO_TEST_CASES']);
  });

  it('when the uploader gives a variant, a repo root and a path prefix, then they apply to every case', () => {
    // given
    const bytes = xml(
      '<testsuite name="s"><testcase name="a" file="/home/ci/work/shop/src/a.test.ts"/><testcase name="b" file="./b.test.ts"/></testsuite>',
    );
    // when
    const report = parseJUnit(bytes, { variant: 'linux', repoRoot: '/home/ci/work/shop', filePathPrefix: 'packages/web' });
    // then
    expect(report.cases.map((c) => [c.file, c.variant])).toEqual([
      ['packages/web/src/a.test.ts', 'linux'],
      ['packages/web/b.test.ts', 'linux'],
    ]);
  });

  it('when a retry passes first and fails last, then the case is failed, since the last attempt decides', () => {
    // given
    const bytes = xml('<testsuite name="s"><testcase name="a"/><testcase name="a"><failure message="boom"/></testcase></testsuite>');
    // when
    const [only] = parseJUnit(bytes).cases;
    // then
    expect(only).toMatchObject({ status: 'failed', attempts: 2, failedAttempts: 1, failureMessage: 'boom' });
  });

  it('when duplicates carry timestamps out of document order, then they are ordered by timestamp', () => {
    // given
    const bytes = xml(
      '<testsuite name="s"><testcase name="a" timestamp="2026-03-02T10:00:05Z"/><testcase name="a" timestamp="2026-03-02T10:00:00Z"><failure message="first"/></testcase></testsuite>',
    );
    // when
    const [only] = parseJUnit(bytes).cases;
    // then
    expect(only).toMatchObject({ status: 'flaky', startedAt: '2026-03-02T10:00:00Z' });
  });

  it('when names and messages are too long, then they are truncated and a warning counts the names', () => {
    // given
    const long = 'x'.repeat(50);
    const bytes = xml(`<testsuite name="s"><testcase name="${long}"><failure message="${long}"/></testcase></testsuite>`);
    // when
    const report = parseJUnit(bytes, { maxFieldLength: 10, maxMessageLength: 20 });
    // then
    expect(report.cases[0]?.name).toBe(`${'x'.repeat(9)}…`);
    expect(report.cases[0]?.failureMessage).toHaveLength(20);
    expect(report.warnings.map((w) => w.code)).toContain('FIELD_TRUNCATED');
  });

  it('when durations are localised or junk, then they are read leniently', () => {
    // given
    const bytes = xml(
      '<testsuite name="s"><testcase name="a" time="1,234.5"/><testcase name="b" time="0,25"/><testcase name="c" time="abc"/></testsuite>',
    );
    // when
    const report = parseJUnit(bytes);
    // then
    expect(report.cases.map((c) => c.durationMs)).toEqual([1_234_500, 250, 0]);
  });

  it('when upload stats are taken, then skipped cases are not counted and flaky ones are not failures', () => {
    // given
    const report = parseJUnit(fixture('surefire-reruns.xml'));
    // when
    const stats = uploadStatsOf(report.cases);
    // then
    expect(stats).toEqual({ testCount: 4, failedCount: 1 });
  });
});

describe('parseJUnit: encodings', () => {
  it('when the report is gzip-compressed, then it parses like the plain one', () => {
    // given
    const plain = fixture('surefire-reruns.xml');
    // when
    const report = parseJUnit(gzipSync(plain));
    // then
    expect(report).toEqual(parseJUnit(plain));
  });

  it('when the report starts with a UTF-8 or UTF-16 byte order mark, then it parses', () => {
    // given
    const text = '<testsuite name="s"><testcase name="ünï"/></testsuite>';
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    // when / then
    expect(parseJUnit(utf8).cases[0]?.name).toBe('ünï');
    expect(parseJUnit(utf16).cases[0]?.name).toBe('ünï');
  });
});

describe('parseJUnit: hostile and broken input', () => {
  it('when a DOCTYPE declares nested entities (billion laughs), then it is refused before parsing', () => {
    // given
    const bytes = fixture('billion-laughs.xml');
    // when
    const err = parseError(() => parseJUnit(bytes));
    // then
    expect(err.code).toBe('ENTITIES_NOT_ALLOWED');
  });

  it('when a DOCTYPE declares an external entity, then it is refused', () => {
    expect(parseError(() => parseJUnit(fixture('external-entity.xml'))).code).toBe('ENTITIES_NOT_ALLOWED');
  });

  it('when an undeclared entity is referenced, then it is left as written, never expanded', () => {
    // given
    const bytes = xml('<testsuite name="s"><testcase name="a &amp; &lol; &#x41;"/></testsuite>');
    // when
    const [only] = parseJUnit(bytes).cases;
    // then
    expect(only?.name).toBe('a & &lol; A');
  });

  it('when "<!ENTITY" appears in a CDATA failure message, then the report is still accepted', () => {
    // given
    const bytes = xml(
      '<testsuite name="s"><testcase name="a"><failure><![CDATA[parser saw <!ENTITY x "y">]]></failure></testcase></testsuite>',
    );
    // when
    const [only] = parseJUnit(bytes).cases;
    // then
    expect(only?.failureMessage).toBe('parser saw <!ENTITY x "y">');
  });

  it('when the input is larger than the input cap, then it is refused as TOO_LARGE', () => {
    // given
    const bytes = fixture('jest-junit.xml');
    // when
    const err = parseError(() => parseJUnit(bytes, { maxInputBytes: 100 }));
    // then
    expect(err.code).toBe('TOO_LARGE');
  });

  it('when gzip data inflates past the XML cap (a gzip bomb), then it is refused as TOO_LARGE', () => {
    // given 8 MiB of spaces compress to a few kilobytes
    const bomb = gzipSync(Buffer.concat([Buffer.from('<testsuites>'), Buffer.alloc(8 * 1024 * 1024, 0x20), Buffer.from('</testsuites>')]));
    // when
    const err = parseError(() => parseJUnit(bomb, { maxXmlBytes: 1024 * 1024 }));
    // then
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(err.code).toBe('TOO_LARGE');
  });

  it('when gzip data is corrupt, then it is refused as MALFORMED', () => {
    expect(parseError(() => parseJUnit(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02]))).code).toBe('MALFORMED');
  });

  it('when the XML is not well formed, then it is refused as MALFORMED with the position', () => {
    // given
    const bytes = fixture('malformed.xml');
    // when
    const err = parseError(() => parseJUnit(bytes));
    // then
    expect(err.code).toBe('MALFORMED');
    expect(err.position?.line).toBeGreaterThan(1);
  });

  it('when the root element is not a JUnit one, then it is refused as NOT_JUNIT', () => {
    expect(parseError(() => parseJUnit(fixture('not-junit.xml'))).code).toBe('NOT_JUNIT');
  });

  it('when the input is not XML at all, then it is refused as NOT_JUNIT', () => {
    expect(parseError(() => parseJUnit(Buffer.from('{"tests": []}'))).code).toBe('NOT_JUNIT');
    expect(parseError(() => parseJUnit(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]))).code).toBe('NOT_JUNIT');
  });

  it('when elements nest deeper than the limit, then it is refused as TOO_DEEP', () => {
    // given
    const depth = 10_000;
    const bytes = Buffer.from(`<testsuites>${'<testsuite>'.repeat(depth)}${'</testsuite>'.repeat(depth)}</testsuites>`);
    // when
    const err = parseError(() => parseJUnit(bytes));
    // then
    expect(err.code).toBe('TOO_DEEP');
  });

  it('when the report holds more cases than the limit, then it is refused as TOO_MANY_CASES', () => {
    // given
    const bytes = xml(`<testsuite name="s">${'<testcase name="a"/>'.repeat(11)}</testsuite>`);
    // when
    const err = parseError(() => parseJUnit(bytes, { maxCases: 10 }));
    // then
    expect(err.code).toBe('TOO_MANY_CASES');
  });

  it('when an element is named like an object prototype key, then it is refused without polluting anything', () => {
    // given
    const bytes = xml('<testsuite name="s"><__proto__ polluted="yes"/><testcase name="a"/></testsuite>');
    // when
    const err = parseError(() => parseJUnit(bytes));
    // then
    expect(err.code).toBe('MALFORMED');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseXml: defence in depth', () => {
  it('when entity declarations slip past the prolog check, then the parser still leaves references unexpanded', () => {
    // given the billion-laughs document handed straight to the XML layer
    const text = fixture('billion-laughs.xml').toString('utf8');
    // when
    const doc = parseXml(text, limitsOf({})) as { testsuites: Array<{ testsuite: Array<{ '@': { name: string } }> }> };
    // then
    expect(doc.testsuites[0]?.testsuite[0]?.['@'].name).toBe('&j;');
  });
});

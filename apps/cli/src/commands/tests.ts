import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { combineAttemptReports, JUnitParseError, parseJUnit, type ParsedJUnit } from '@railyard/testhealth';
import { CI_BRANCH_VARIABLES } from '../config';
import { UsageError, type CliContext } from '../context';
import { allPages, ApiRefusal, apiTargetOf, postJson } from '../http';
import { positiveIntOption, repoOption } from '../identifiers';

interface TestsFlags {
  url?: string;
  api?: string;
  token?: string;
  repo?: string;
  sha?: string;
  branch?: string;
  job?: string;
  pr?: string;
  variant?: string;
  status?: string;
  org?: string;
  pageSize?: string;
}

/** What the JSON form of uploadTestResults allows in one request (the 20 MiB body limit, minus room for the rest). */
const MAX_REQUEST_BYTES = 20 * 1024 * 1024 - 64 * 1024;

const isGzip = (bytes: Buffer): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

const readReports = async (paths: string[]): Promise<{ name: string; bytes: Buffer }[]> => {
  if (paths.length === 0) throw new UsageError('name at least one JUnit report file');
  return Promise.all(
    paths.map(async (p) => {
      try {
        return { name: p.split(/[\\/]/).pop() || p, bytes: await readFile(p) };
      } catch (err) {
        throw new ApiRefusal(0, 'FILE_UNREADABLE', `${p}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
    }),
  );
};

/** `railyard tests upload FILE…`: JUnit reports of one CI job. */
export const uploadCommand = async (values: TestsFlags, ctx: CliContext, files: string[]): Promise<number> => {
  const repo = repoOption(values.repo);
  if (!values.sha) throw new UsageError('--sha is required');
  const branch = values.branch ?? ctx.settings.ciBranch;
  if (!branch) throw new UsageError(`--branch is required (none of ${CI_BRANCH_VARIABLES.join(', ')} is set)`);
  const prNumber = positiveIntOption('--pr', values.pr);
  const target = apiTargetOf(values, ctx.settings);
  const reports = await readReports(files);
  // Compressed before base64: reports shrink about tenfold, so far more fit under the request limit.
  const encoded = reports.map((r) => ({ name: r.name, contentBase64: (isGzip(r.bytes) ? r.bytes : gzipSync(r.bytes)).toString('base64') }));
  const size = encoded.reduce((n, f) => n + f.contentBase64.length + f.name.length, 0);
  if (size > MAX_REQUEST_BYTES)
    throw new ApiRefusal(
      413,
      'PAYLOAD_TOO_LARGE',
      `the reports need ${size} bytes encoded; one request takes ${MAX_REQUEST_BYTES}: upload them in several calls`,
    );
  const summary = await postJson(target, '/uploadTestResults', {
    repo,
    sha: values.sha,
    branch,
    ...(values.job ? { job: values.job } : {}),
    ...(prNumber !== undefined ? { prNumber } : {}),
    ...(values.variant ? { variant: values.variant } : {}),
    files: encoded,
  });
  ctx.io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  return 0;
};

const orgOf = (values: TestsFlags, ctx: CliContext): string => values.org ?? ctx.settings.orgSlug ?? 'railyard';

/** `railyard tests list`: every unhealthy test, all pages. */
export const listCommand = async (values: TestsFlags, ctx: CliContext): Promise<number> => {
  const repo = repoOption(values.repo);
  const status = values.status?.toUpperCase();
  if (status !== 'FLAKY' && status !== 'BROKEN') throw new UsageError('--status must be flaky or broken');
  const pageSize = positiveIntOption('--page-size', values.pageSize, 100) ?? 100;
  const target = apiTargetOf(values, ctx.settings);
  const tests = await allPages(async (token) => {
    const page = await postJson<{ tests: unknown[]; page: { next_page_token: string } }>(target, '/flaky-tests/list-unhealthy-tests', {
      repo,
      org_url_slug: orgOf(values, ctx),
      status,
      page_query: { page_size: pageSize, page_token: token },
    });
    return { items: page.tests, next: page.page.next_page_token };
  });
  ctx.io.stdout.write(`${JSON.stringify(tests, null, 2)}\n`);
  return 0;
};

const parseLocally = (reports: { name: string; bytes: Buffer }[]): ParsedJUnit => {
  const parsed = reports.map((r) => {
    try {
      return parseJUnit(r.bytes);
    } catch (err) {
      if (err instanceof JUnitParseError) throw new ApiRefusal(0, err.code, `${r.name}: ${err.message}`);
      throw err;
    }
  });
  return parsed.length === 1 ? (parsed[0] as ParsedJUnit) : combineAttemptReports(parsed);
};

/**
 * Asks the server whether every failed test of the reports is quarantined. Fails safe: a report
 * that does not parse, a failure on a suite rather than a test, no failed test at all, or a server
 * that cannot be reached all answer "no" (exit 1), so quarantine never turns a build error green.
 */
export const checkCommand = async (values: TestsFlags, ctx: CliContext, files: string[]): Promise<number> => {
  const repo = repoOption(values.repo);
  const target = apiTargetOf(values, ctx.settings);
  const report = parseLocally(await readReports(files));
  if (report.suiteFailures.length > 0) {
    ctx.io.stderr.write(
      `railyard tests check: ${report.suiteFailures.length} failure(s) are reported on a suite, not on a test; quarantine cannot cover them\n`,
    );
    return 1;
  }
  const failures = report.cases
    .filter((c) => c.status === 'failed')
    .map((c) => ({
      name: c.name,
      classname: c.classname,
      file: c.file,
      parent: c.parent,
      variant: c.variant,
      ...(c.explicitId ? { id: c.explicitId } : {}),
    }));
  const verdict = await postJson<{ allQuarantined: boolean; quarantined: unknown[]; notQuarantined: { name?: string; testId: string }[] }>(
    target,
    '/flaky-tests/check-failures',
    {
      repo,
      failures,
    },
  );
  ctx.io.stdout.write(`${JSON.stringify(verdict, null, 2)}\n`);
  if (verdict.allQuarantined) return 0;
  ctx.io.stderr.write(
    failures.length === 0
      ? 'railyard tests check: the reports hold no failed test, so the job failed for another reason\n'
      : `railyard tests check: ${verdict.notQuarantined.length} failed test(s) are not quarantined: ${verdict.notQuarantined.map((t) => t.name ?? t.testId).join(', ')}\n`,
  );
  return 1;
};

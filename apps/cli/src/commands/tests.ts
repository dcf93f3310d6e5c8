import { parseSubcommand } from '../args';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { combineAttemptReports, JUnitParseError, parseJUnit, type ParsedJUnit } from '@railyard/testhealth';
import {
  allPages,
  ApiRefusal,
  API_OPTIONS,
  API_USAGE,
  apiTargetOf,
  positiveInt,
  postJson,
  repoOption,
  runCommand,
  UsageError,
  type CommandIo,
} from './test-health-api';

const USAGE = `usage: railyard tests <subcommand> …   (test results and test health, through the API)
  tests upload --repo HOST/OWNER/NAME --sha SHA [--branch B] [--job J] [--pr N] [--variant V] FILE…
      records JUnit XML reports (plain or .gz) of one CI job; --branch defaults to the CI's
      branch variable (GITHUB_HEAD_REF, GITHUB_REF_NAME, BUILDKITE_BRANCH, CI_COMMIT_REF_NAME, BRANCH_NAME)
  tests list --repo HOST/OWNER/NAME --status flaky|broken [--org SLUG] [--page-size N]
      every unhealthy test, all pages, as JSON
  tests check --repo HOST/OWNER/NAME FILE…
      exit 0 only when every failed test in the reports is quarantined (for a CI job whose tests failed)
${API_USAGE}
Exit codes: 0 done (check: all failures quarantined), 1 refused or not all quarantined, 2 bad usage.`;

const OPTIONS = {
  ...API_OPTIONS,
  repo: { type: 'string' },
  sha: { type: 'string' },
  branch: { type: 'string' },
  job: { type: 'string' },
  pr: { type: 'string' },
  variant: { type: 'string' },
  status: { type: 'string' },
  org: { type: 'string' },
  'page-size': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const ALLOWED: Record<string, readonly (keyof Values)[]> = {
  upload: ['api', 'token', 'repo', 'sha', 'branch', 'job', 'pr', 'variant'],
  list: ['api', 'token', 'repo', 'status', 'org', 'page-size'],
  check: ['api', 'token', 'repo'],
};

/** What the JSON form of uploadTestResults allows in one request (the 20 MiB body limit, minus room for the rest). */
const MAX_REQUEST_BYTES = 20 * 1024 * 1024 - 64 * 1024;

const CI_BRANCH_VARIABLES = ['GITHUB_HEAD_REF', 'GITHUB_REF_NAME', 'BUILDKITE_BRANCH', 'CI_COMMIT_REF_NAME', 'BRANCH_NAME'];

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

const upload = async (values: Values, files: string[], env: NodeJS.ProcessEnv, io: CommandIo): Promise<number> => {
  const repo = repoOption(values.repo);
  if (!values.sha) throw new UsageError('--sha is required');
  const branch = values.branch ?? CI_BRANCH_VARIABLES.map((v) => env[v]).find((b) => b);
  if (!branch) throw new UsageError(`--branch is required (none of ${CI_BRANCH_VARIABLES.join(', ')} is set)`);
  const prNumber = positiveInt('pr', values.pr);
  const target = apiTargetOf(values, env);
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
  io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  return 0;
};

const orgOf = (values: Values, env: NodeJS.ProcessEnv): string => values.org ?? env.RAILYARD_ORG_SLUG ?? 'railyard';

const list = async (values: Values, env: NodeJS.ProcessEnv, io: CommandIo): Promise<number> => {
  const repo = repoOption(values.repo);
  const status = values.status?.toUpperCase();
  if (status !== 'FLAKY' && status !== 'BROKEN') throw new UsageError('--status must be flaky or broken');
  const pageSize = positiveInt('page-size', values['page-size'], 100) ?? 100;
  const target = apiTargetOf(values, env);
  const tests = await allPages(async (token) => {
    const page = await postJson<{ tests: unknown[]; page: { next_page_token: string } }>(target, '/flaky-tests/list-unhealthy-tests', {
      repo,
      org_url_slug: orgOf(values, env),
      status,
      page_query: { page_size: pageSize, page_token: token },
    });
    return { items: page.tests, next: page.page.next_page_token };
  });
  io.stdout.write(`${JSON.stringify(tests, null, 2)}\n`);
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
const check = async (values: Values, files: string[], env: NodeJS.ProcessEnv, io: CommandIo): Promise<number> => {
  const repo = repoOption(values.repo);
  const target = apiTargetOf(values, env);
  const report = parseLocally(await readReports(files));
  if (report.suiteFailures.length > 0) {
    io.stderr.write(
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
  io.stdout.write(`${JSON.stringify(verdict, null, 2)}\n`);
  if (verdict.allQuarantined) return 0;
  io.stderr.write(
    failures.length === 0
      ? 'railyard tests check: the reports hold no failed test, so the job failed for another reason\n'
      : `railyard tests check: ${verdict.notQuarantined.length} failed test(s) are not quarantined: ${verdict.notQuarantined.map((t) => t.name ?? t.testId).join(', ')}\n`,
  );
  return 1;
};

/** `railyard tests upload|list|check …`. */
export const testsCommand = (
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: CommandIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> =>
  runCommand(io, 'railyard tests', USAGE, async () => {
    const parsed = parseSubcommand('tests', argv, OPTIONS, ALLOWED, { positionals: true });
    if (parsed === 'help') {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const { sub, rest } = parsed;
    const values = parsed.values as Values;
    if (sub === 'list' && rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
    if (sub === 'upload') return upload(values, rest, env, io);
    if (sub === 'check') return check(values, rest, env, io);
    return list(values, env, io);
  });

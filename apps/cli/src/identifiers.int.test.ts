import { promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { isValidBranchName, parseRepoSpec } from '@railyard/githost';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { cliInProcess, cliViaBin } from './testing';

jest.setTimeout(120_000);

const REPO = 'git.test/acme/widgets';
const SHA_LENGTH = 40;

let sandbox: string;
let env: NodeJS.ProcessEnv;
let server: Server;
let requests = 0;
let sha: string;

/** Every file and directory under the sandbox with its size and mtime: what a command might have touched. */
const snapshot = async (dir: string): Promise<string[]> => {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const entry of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      const stat = await fs.lstat(p);
      out.push(`${path.relative(sandbox, p)} ${stat.isDirectory() ? 'dir' : stat.size} ${stat.mtimeMs}`);
      if (entry.isDirectory()) await walk(p);
    }
  };
  await walk(dir);
  return out.sort();
};

const cli = (argv: string[]) => cliInProcess(argv, env);

// A plain boolean: the type guard would narrow what fails it to never.
const validBranch = (s: string): boolean => isValidBranchName(s);

const nasty = [
  '..',
  '.',
  '../..',
  '/',
  '\\',
  '\0',
  '\n',
  ' ',
  '-',
  '~',
  '%2e%2e',
  '@{',
  '.lock',
  ':',
  '*',
  '?',
  '[',
  '\u202e',
  'é',
  '\u{1F600}',
];
const nastyString = fc
  .array(fc.oneof(fc.constantFrom(...nasty), fc.string({ maxLength: 6 })), { minLength: 0, maxLength: 6 })
  .map((parts) => parts.join(''));

const badRepo = fc
  .oneof(
    fc.constantFrom(
      '..',
      '../acme/widgets',
      'git.test/../widgets',
      'git.test/acme/..',
      '/etc/passwd',
      'git.test/acme/widgets/extra',
      'acme/widgets',
      '-x/acme/widgets',
      'git.test/acme/.git',
      'git.test\\acme\\widgets',
      'git.test/acme/wid gets',
      'git.test/acme/wid\0gets',
      '',
    ),
    nastyString,
  )
  .filter((s) => parseRepoSpec(s) === null);

const badBranch = fc
  .oneof(
    fc.constantFrom(
      '..',
      'a..b',
      '../../etc',
      'refs/../../x',
      '-rf',
      'x.lock',
      'x/',
      '/x',
      'a b',
      'a~1',
      'a^',
      'a:b',
      '@{u}',
      'HEAD',
      '.hidden',
      '',
    ),
    nastyString,
  )
  .filter((s) => !validBranch(s));

const badNumber = fc.oneof(
  fc.constantFrom('0', '-1', '1e3', '0x10', '1.5', '+4', ' 4', '4294967296', '99999999999999999999', 'NaN', 'abc', ''),
  fc.string({ maxLength: 12 }).filter((s) => !/^[1-9][0-9]{0,9}$/.test(s) || Number(s) > 4_294_967_295),
);

/** Each command that takes identifiers, with one of them replaced by the bad value. */
const commands = (bad: { repo?: string; branch?: string; number?: string }): string[][] => {
  const repo = `--repo=${bad.repo ?? REPO}`;
  const branch = `--branch=${bad.branch ?? 'main'}`;
  const pr = `--pr=${bad.number ?? '7'}`;
  const number = `--number=${bad.number ?? '7'}`;
  return [
    ['submit', repo, branch, pr, '--wait', '--timeout=5s'],
    ['cancel', repo, branch, pr],
    ['restart', repo, branch, pr],
    ['status', repo, branch, pr],
    ...(bad.number === undefined ? [['queue', 'show', repo, branch]] : []),
    ['pr', 'open', repo, number, `--head=${bad.branch ?? 'feature'}`, `--base=${bad.branch ?? 'main'}`],
    ...(bad.branch === undefined ? [['pr', 'close', repo, number]] : []),
    ...(bad.branch === undefined ? [['pr', 'show', repo, number]] : []),
    ...(bad.repo !== undefined ? [['status', 'set', repo, `--sha=${sha}`, '--context=ci', '--state=success']] : []),
    ...(bad.number === undefined ? [['history', repo, branch]] : []),
    ...(bad.number === undefined ? [['replay', repo, branch, '--at=2026-03-01T09:30:00Z']] : []),
  ];
};

beforeAll(async () => {
  sandbox = await makeTempDir('railyard-cli-ids-');
  const dataDir = path.join(sandbox, 'data');
  ({ sha } = await createRepoWithCommits(path.join(dataDir, 'git'), { host: 'git.test', owner: 'acme', name: 'widgets' }));
  expect(sha).toHaveLength(SHA_LENGTH);
  await fs.mkdir(path.join(sandbox, 'outside'));
  await fs.writeFile(path.join(sandbox, 'outside', 'secret.txt'), 'untouched\n');
  server = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"RECORDER","message":"no"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = { RAILYARD_DATA_DIR: dataDir, RAILYARD_GIT_ROOT: path.join(dataDir, 'git'), RAILYARD_URL: url, RAILYARD_TOKEN: 'tok' };
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await removeTempDir(sandbox);
});

const refusedCleanly = async (bad: { repo?: string; branch?: string; number?: string }): Promise<void> => {
  const before = await snapshot(sandbox);
  const sent = requests;
  for (const argv of commands(bad)) {
    const run = await cli(argv);
    expect({ argv, code: run.code, stdout: run.stdout }).toEqual({ argv, code: 2, stdout: '' });
    expect(run.stderr).toMatch(/^error: /);
    expect(run.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  }
  expect(requests).toBe(sent);
  expect(await snapshot(sandbox)).toEqual(before);
};

describe('identifiers through the CLI (property)', () => {
  it('when the arguments are good, then the commands do reach the server (the recorder below is live)', async () => {
    const sent = requests;
    expect((await cli(['status', `--repo=${REPO}`, '--branch=main', '--pr=7'])).code).toBe(1);
    expect(requests).toBe(sent + 1);
  });

  it('when a repository spec is bad, then every command exits 2 with a message, sends nothing and touches no file', async () => {
    await fc.assert(
      fc.asyncProperty(badRepo, (repo) => refusedCleanly({ repo })),
      { numRuns: 100 },
    );
  });

  it('when a branch name is bad, then every command exits 2 with a message, sends nothing and touches no file', async () => {
    await fc.assert(
      fc.asyncProperty(badBranch, (branch) => refusedCleanly({ branch })),
      { numRuns: 100 },
    );
  });

  it('when a PR number is bad, then every command exits 2 with a message, sends nothing and touches no file', async () => {
    await fc.assert(
      fc.asyncProperty(badNumber, (number) => refusedCleanly({ number })),
      { numRuns: 100 },
    );
  });

  it('when the real bin gets bad identifiers, then it prints one error line, no stack trace, and exits 2', async () => {
    // Arguments of a real process cannot hold NUL; everything else goes through as typed.
    const samples = [
      ...fc
        .sample(
          badRepo.filter((s) => !s.includes('\0')),
          { numRuns: 3, seed: 7 },
        )
        .map((repo) => ({ repo })),
      ...fc
        .sample(
          badBranch.filter((s) => !s.includes('\0')),
          { numRuns: 3, seed: 7 },
        )
        .map((branch) => ({ branch })),
      ...fc
        .sample(
          badNumber.filter((s) => !s.includes('\0')),
          { numRuns: 3, seed: 7 },
        )
        .map((number) => ({ number })),
    ];
    for (const bad of samples) {
      const argv = (commands(bad)[0] ?? []).slice();
      const run = await cliViaBin(argv, env);
      expect({ argv, code: run.code, stdout: run.stdout }).toEqual({ argv, code: 2, stdout: '' });
      expect(run.stderr).toMatch(/^error: .+\n\(add --help for usage\)\n$/);
    }
  });
});

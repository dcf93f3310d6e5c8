import { promises as fs } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { commitOnBranch, openPr } from '@railyard/testkit';
import { client, REPO } from './support/client';
import { eventually, filesOnMain } from './support/engine-world';
import { testHealthClient } from './support/junit';
import { startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

/**
 * Issue 25, item 4, through the engine and the local CI on real git: pull requests whose check links
 * its report paths to the server's files, or forks, allocates or writes without end. Each PR fails
 * (never stuck, never an infrastructure error), nothing of the server reaches test health or a log,
 * each hog's log names its limit, the server answers throughout, and a good PR merges after them. Main's `.railyard.yml` names the check and the reports;
 * each PR changes only `check.sh` and adds links, what any PR may do.
 */
jest.setTimeout(300_000);

const PRIVATE_CASE = 'private-case-of-the-server-0451';
const REPORTS = ['junit.xml', 'leak.xml', 'r/mem', 'r/environ', 'data/**'];

let world: World;
let server: RunningProcess;
let ci: ReturnType<typeof client>;

const settled = (n: number): Promise<string> =>
  eventually(
    `PR #${n} to settle`,
    async () => {
      const state = (await ci.getPr(n)).body.state as string;
      return ['merged', 'failed', 'cancelled'].includes(state) ? state : undefined;
    },
    240_000,
  );

/** Opens and submits PR `n` whose check.sh is `check`, with `links` committed beside it. */
const submit = async (n: number, check: string, links: Record<string, string> = {}): Promise<void> => {
  await commitOnBranch(world.gitRoot, REPO, { branch: `hostile-${n}`, files: { 'check.sh': check, [`h${n}.txt`]: `${n}\n` }, links });
  await openPr(world.gitRoot, { repo: REPO, number: n, head: `hostile-${n}`, base: 'main' });
  expect((await ci.submit(n)).status).toBe(200);
};

/** Every check log of the server, as a read-scope token holder gets them. */
const allLogs = async (): Promise<string[]> => {
  const runs = await fs.readdir(path.join(world.dataDir, 'ci-logs'));
  return Promise.all(runs.map(async (run) => (await request(server.url).get(`/ci/logs/${run}/unit`).set('x-api-token', TOKENS.read)).text));
};

beforeAll(async () => {
  world = await makeWorld();
  await fs.writeFile(
    path.join(world.dataDir, 'private-junit.xml'),
    `<testsuite name="s"><testcase name="${PRIVATE_CASE}" classname="s" file="s.ts"><failure/></testcase></testsuite>\n`,
    { mode: 0o600 },
  );
  await commitOnBranch(world.gitRoot, REPO, {
    branch: 'main',
    files: {
      'check.sh': 'exit 0\n',
      // bash, which retries a refused fork (a shell that gives up at once fails on its exit code: docs/security.md).
      '.railyard.yml': `ci:\n  unit: "bash ./check.sh"\nreports: ${JSON.stringify(REPORTS)}\nmerge:\n  required_statuses: [unit]\n`,
    },
    message: 'A check and its reports',
  });
  server = await startProcess('apps/server/src/main.ts', {
    ...world.env,
    RAILYARD_ENGINE: 'on',
    RAILYARD_ENGINE_TICK_MS: '200',
    RAILYARD_CI_MAX_PROCESSES: '64',
    RAILYARD_CI_MEMORY_MIB: '256',
    RAILYARD_CI_DISK_MIB: '16',
    RAILYARD_CI_LOG_MIB: '1',
  });
  ci = client(server.url, TOKENS.write);
  const admin = client(server.url, TOKENS.admin);
  expect((await admin.createQueue({ concurrency: 1, canOptimisticallyMerge: false, pendingFailureDepth: 0, flakeRetries: 0 })).status).toBe(
    200,
  );
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('pull requests whose check turns on the server (issue 25)', () => {
  it('when a failing check names /proc/self/mem and /proc/self/environ through a link as reports, then the PR fails, not stuck', async () => {
    await submit(81, 'exit 1\n', { r: '/proc/self' });
    expect(await settled(81)).toBe('failed');
  });

  it('when a failing check links its reports to a private JUnit file and to the data dir, then the PR fails and nothing of them is read', async () => {
    await submit(82, 'exit 1\n', { 'leak.xml': path.join(world.dataDir, 'private-junit.xml'), data: world.dataDir });
    expect(await settled(82)).toBe('failed');
    const th = testHealthClient(server.url, TOKENS.read, 'railyard');
    const asked = await th.check([{ name: PRIVATE_CASE, classname: 's', parent: 's', file: 's.ts' }]);
    expect(asked.body.notQuarantined).toMatchObject([{ known: false }]);
    for (const log of await allLogs()) expect(log).not.toMatch(/events\.sqlite|private-junit|page-token-secret/);
  });

  /** A hog's PR fails while the server answers every poll, and its log names the limit it hit. */
  const hogFails = async (n: number, check: string, limit: string): Promise<void> => {
    await submit(n, check);
    const health: number[] = [];
    const state = await eventually(
      `PR #${n} to settle`,
      async () => {
        health.push(
          await request(server.url)
            .get('/healthz')
            .then(
              (r) => r.status,
              () => 0,
            ),
        );
        const s = (await ci.getPr(n)).body.state as string;
        return ['merged', 'failed', 'cancelled'].includes(s) ? s : undefined;
      },
      240_000,
    );
    expect(state).toBe('failed');
    expect(new Set(health)).toEqual(new Set([200]));
    expect((await allLogs()).some((l) => l.includes(`# stopped at a limit: ${limit}`))).toBe(true);
  };

  it('when a check forks without end, then the PR fails and its log names the process limit', async () => {
    await hogFails(83, 'while :; do sleep 600 & done\n', 'reached its limit of 64 processes (RAILYARD_CI_MAX_PROCESSES)');
  });

  it('when a check’s processes allocate without end, then the PR fails and its log names the memory limit', async () => {
    // Each process stays under RLIMIT_DATA; together they pass the check's 256 MiB.
    const grab = `node -e 'const b = Buffer.alloc(100 << 20, 1); setInterval(() => b[0]++, 1000)'`;
    await hogFails(85, `for i in 1 2 3 4; do ${grab} & done; wait\n`, 'passed its memory limit of 256 MiB (RAILYARD_CI_MEMORY_MIB)');
  });

  it('when a check writes a file without end, then the PR fails, its log names the disk limit, and the data dir keeps nothing of it', async () => {
    await hogFails(86, 'cat /dev/zero > big; sleep 600\n', 'filled its disk limit of 16 MiB (RAILYARD_CI_DISK_MIB)');
    await eventually('the attempt directory to go', async () =>
      (await fs.readdir(path.join(world.dataDir, 'ci-work'))).length === 0 ? true : undefined,
    );
  });

  it('when a check writes its log without end, then the PR fails, its log names the log limit and is cut there', async () => {
    await hogFails(87, 'yes railyard\n', 'passed its log limit of 1 MiB (RAILYARD_CI_LOG_MIB)');
    for (const log of await allLogs()) expect(Buffer.byteLength(log)).toBeLessThan(1024 * 1024 + 1024);
  });

  it('when the hostile PRs have failed, then a good PR merges after them and main holds nothing of theirs', async () => {
    await world.openFeaturePr(84);
    expect((await ci.submit(84)).status).toBe(200);
    expect(await settled(84)).toBe('merged');
    const onMain = filesOnMain(world);
    for (const n of [81, 82, 83, 85, 86, 87]) expect(onMain).not.toContain(`h${n}.txt`);
    expect(onMain).not.toContain('r');
  });
});

import { execFile, spawn } from 'node:child_process';
import { client, REPO } from './support/client';
import { configureCi, eventually, prReaches, startEmbedded } from './support/engine-world';
import { RAILYARD_BIN, ROOT, type RunningProcess } from './support/processes';
import { openPrWithFiles, SLOW_OR_FAIL_CHECK } from './support/slow-check';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(180_000);

const REPO_SPEC = `${REPO.host}/${REPO.owner}/${REPO.name}`;

let world: World;
let server: RunningProcess;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real `railyard` bin as a CI job runs it: settings from RAILYARD_URL and RAILYARD_TOKEN. */
const railyard = (args: string[]): { done: Promise<Run>; stdoutSoFar: () => string } => {
  const child = spawn(process.execPath, [RAILYARD_BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, RAILYARD_URL: server.url, RAILYARD_TOKEN: TOKENS.write },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return { done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))), stdoutSoFar: () => stdout };
};

const submitWait = (pr: number, ...extra: string[]) =>
  railyard(['submit', '--repo', REPO_SPEC, '--branch', 'main', '--pr', String(pr), '--wait', '--poll-interval', '200ms', ...extra]);

const openPrWith = (number: number, files: Record<string, string>) => openPrWithFiles(world, number, files);

const lines = (text: string): string[] => text.trim().split('\n').filter(Boolean);

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { test: SLOW_OR_FAIL_CHECK });
  server = await startEmbedded(world);
  expect((await client(server.url, TOKENS.admin).createQueue()).status).toBe(200);
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('railyard submit --wait against a real server and the local CI', () => {
  it('when the PR passes its checks and merges, then it prints each change and exits 0', async () => {
    // brief.txt: the check takes two seconds, so the CLI's 200 ms poll sees the PR testing.
    await openPrWith(1, { 'one.txt': 'fine\n', 'brief.txt': 'x\n' });

    const run = await submitWait(1).done;

    expect(run).toMatchObject({ code: 0, stderr: '' });
    const out = lines(run.stdout);
    expect(out[0]).toBe(`submitted #1 to ${REPO_SPEC} main`);
    // The run is named (found in the queue's history when the answer does not carry it).
    expect(out.some((l) => /^#1 testing · .*run \S+ on railyard-merge\/pr-1\/\S+/.test(l))).toBe(true);
    expect(out[out.length - 1]).toMatch(/^#1 merged/);
    expect(new Set(out).size).toBe(out.length);
  });

  it('when a check fails, then it exits 1 and, with --json, every line is a JSON object ending in the verdict', async () => {
    await openPrWith(2, { 'two.txt': 'FAIL\n' });

    const run = await submitWait(2, '--json').done;

    expect(run).toMatchObject({ code: 1, stderr: '' });
    const records = lines(run.stdout).map((l) => JSON.parse(l) as { type: string; outcome?: string; exitCode?: number; state?: string });
    expect(records.slice(0, -1).every((r) => r.type === 'progress')).toBe(true);
    expect(records[records.length - 1]).toMatchObject({
      type: 'verdict',
      outcome: 'failed',
      exitCode: 1,
      reason: { code: 'TEST_RUN_REQUIRED_STATUS_FAILED' },
    });
  });

  it('when `railyard submit` sends a PR the engine failed again, then it exits 0 and the queue tests the PR in a new run', async () => {
    // The engine (its own thread) failed #2 in the test above; the API's cached queue state may still hold it testing.
    const failed = await prReaches(server.url, 2, ['failed']);

    const run = await railyard(['submit', '--repo', REPO_SPEC, '--branch', 'main', '--pr', '2', '--json']).done;

    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect((JSON.parse(run.stdout) as { state: string }).state).toMatch(/^(pending|testing)$/);
    const retest = await eventually('PR #2 to be tested in a new run', async () => {
      const res = await client(server.url, TOKENS.read).getPr(2);
      const id = (res.body.lastTestRun as { id?: string } | undefined)?.id;
      return id && id !== (failed.lastTestRun as { id: string }).id ? id : undefined;
    });
    expect(retest).toEqual(expect.any(String));
    // The new run fails too (FAIL is still in the PR): the queue is free for the tests below.
    await prReaches(server.url, 2, ['failed']);
  });

  it('when the PR is cancelled while the CLI waits, then it exits 3', async () => {
    await openPrWith(3, { 'slow.txt': 'slow\n' });

    const waiting = submitWait(3);
    await prReaches(server.url, 3, ['testing']);
    // Cancel only once the CLI has itself seen the check pending: its poll could otherwise miss the testing state.
    await eventually('the CLI to print the pending check', async () =>
      /checks: test pending/.test(waiting.stdoutSoFar()) ? true : undefined,
    );
    expect((await client(server.url, TOKENS.write).cancel(3)).status).toBe(200);
    const run = await waiting.done;

    expect(run.code).toBe(3);
    const out = lines(run.stdout);
    expect(out.pop()).toBe('#3 cancelled · cancelled through the API');
    // While it tested, the line carried the check and its log link.
    expect(out.some((l) => /^#3 testing · .* · checks: test pending http:\/\/\S+\/ci\/logs\/\S+\/test$/.test(l))).toBe(true);
  });

  it('when the verdict does not come within --timeout, then it exits 4 and leaves the PR in the queue', async () => {
    await openPrWith(4, { 'slow.txt': 'slow\n' });

    const run = await submitWait(4, '--timeout', '3s').done;

    expect(run.code).toBe(4);
    expect(lines(run.stdout).pop()).toMatch(/gave up waiting for #4 after 3s; it stays in the queue/);
    const pr = await client(server.url, TOKENS.read).getPr(4);
    expect(pr.body.isCurrentlySubmittedToQueue).toBe(true);
    await client(server.url, TOKENS.write).cancel(4);
    await eventually('PR #4 to leave the queue', async () =>
      (await client(server.url, TOKENS.read).getPr(4)).body.state === 'cancelled' ? true : undefined,
    );
  });

  it('when the arguments are bad, then it exits 2 before it sends anything', async () => {
    const run = await railyard(['submit', '--repo', REPO_SPEC, '--branch', 'main', '--pr', '5', '--priority', 'asap']).done;

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--priority must be one of urgent, high, medium, low or 0-255');
    expect((await client(server.url, TOKENS.read).getPr(5)).status).toBe(404);
  });
});

describe('railyard queue show and status', () => {
  it('when a PR is queued, then queue show lists it with its position and status --json answers as the API', async () => {
    await openPrWith(6, { 'slow.txt': 'slow\n' });
    await openPrWith(7, { 'seven.txt': '7\n' });
    const write = client(server.url, TOKENS.write);
    await write.submit(6);
    await write.submit(7);
    await prReaches(server.url, 6, ['testing']);

    const table = await railyard(['queue', 'show', '--repo', REPO_SPEC, '--branch', 'main']).done;
    const status = await railyard(['status', '--repo', REPO_SPEC, '--branch', 'main', '--pr', '7', '--json']).done;
    const human = await railyard(['status', '--repo', REPO_SPEC, '--branch', 'main', '--pr', '7']).done;

    expect(table.code).toBe(0);
    const rows = lines(table.stdout);
    expect(rows[0]).toMatch(/^git\.local\/acme\/widgets main: running, single mode, concurrency 1; 2 PR\(s\)$/);
    expect(rows[1]).toMatch(/^POS\s+PR\s+STATE\s+PRIORITY/);
    expect(rows[2]).toMatch(/^1\s+#6\s+testing\s+medium\(100\)/);
    expect(rows[3]).toMatch(/^2\s+#7\s+pending\s+medium\(100\)/);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual((await client(server.url, TOKENS.read).getPr(7)).body);
    expect(human.stdout).toContain('position:   2 of 2');
    await write.cancel(6);
    await write.cancel(7);
  });

  it('when the server refuses a restart, then it exits 1 naming the status and the error code', async () => {
    const refused = await new Promise<Run>((resolve) =>
      execFile(
        process.execPath,
        [RAILYARD_BIN, 'restart', '--repo', REPO_SPEC, '--branch', 'main', '--pr', '7'],
        { cwd: ROOT, env: { ...process.env, RAILYARD_URL: server.url, RAILYARD_TOKEN: TOKENS.write } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );

    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^railyard restart: 409 PR_/);
  });
});

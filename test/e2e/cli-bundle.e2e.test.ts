import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { client, REPO } from './support/client';
import { configureCi, startEmbedded } from './support/engine-world';
import type { RunningProcess } from './support/processes';
import { openPrWithFiles, SLOW_OR_FAIL_CHECK } from './support/slow-check';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(180_000);

const REPO_SPEC = `${REPO.host}/${REPO.owner}/${REPO.name}`;

let world: World;
let server: RunningProcess;
/** A directory with nothing but the bundle: no package.json, no node_modules above it. */
let job: string;

const railyard = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(job, 'railyard.cjs'), ...args], {
      cwd: job,
      env: { PATH: process.env.PATH, RAILYARD_URL: server.url, RAILYARD_TOKEN: TOKENS.write, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
};

beforeAll(async () => {
  // The compiled server serves the bundle its build made beside it (dist/cli/railyard.cjs, D300).
  world = await makeWorld();
  await configureCi(world, { test: SLOW_OR_FAIL_CHECK });
  server = await startEmbedded(world);
  expect((await client(server.url, TOKENS.admin).createQueue()).status).toBe(200);
  // What a CI job does: fetch the CLI from the server it is about to talk to, with no token.
  const res = await fetch(`${server.url}/cli/railyard.cjs`);
  expect(res.status).toBe(200);
  job = mkdtempSync(path.join(tmpdir(), 'railyard-cli-job-'));
  writeFileSync(path.join(job, 'railyard.cjs'), Buffer.from(await res.arrayBuffer()));
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
  if (job) rmSync(job, { recursive: true, force: true });
});

describe('the one-file CLI bundle a CI job fetches (npm run build:cli)', () => {
  it('when a job fetches it from the server into an empty directory, then it is one file of a few MiB and prints its help', async () => {
    expect(statSync(path.join(job, 'railyard.cjs')).size).toBeLessThan(4 * 1024 * 1024);
    const help = await railyard(['--help']);
    expect(help).toMatchObject({ code: 0 });
    expect(help.stdout).toContain('submit');
  });

  it('when a CI job runs submit --wait with it, then the PR merges and it exits 0', async () => {
    await openPrWithFiles(world, 1, { 'one.txt': 'fine\n' });
    const run = await railyard(['submit', '--repo', REPO_SPEC, '--branch', 'main', '--pr', '1', '--wait', '--poll-interval', '200ms']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.trim().split('\n').pop()).toMatch(/^#1 merged/);
  });

  it('when the queue is read over HTTP, then queue show and history answer from the server', async () => {
    expect(await railyard(['queue', 'show', '--repo', REPO_SPEC, '--branch', 'main'])).toMatchObject({ code: 0 });
    const history = await railyard(['history', '--repo', REPO_SPEC, '--branch', 'main', '--url', server.url]);
    expect(history).toMatchObject({ code: 0 });
    expect(history.stdout).toContain('PrMerged');
  });

  it('when a command of the local stores is run from the bundle, then it fails with one line saying what it needs', async () => {
    const local = await railyard(['history', '--repo', REPO_SPEC, '--branch', 'main'], { RAILYARD_DATA_DIR: world.dataDir });
    expect(local.code).toBe(1);
    expect(local.stderr).toMatch(/needs the full installation/);
    expect(local.stderr.trim().split('\n')).toHaveLength(1);
  });
});

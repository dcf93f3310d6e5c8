import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { ciLogBlobName, ciLogFile, CommitChecker, MAX_ARCHIVED_LOG_BYTES, sweepRetention } from '@railyard/ci';
import type { RepoRef } from '@railyard/domain';
import { MemoryEventStore, PostgresBlobStore } from '@railyard/eventstore';
import { localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import {
  commitOnBranch,
  createRepoWithCommits,
  createTestDatabase,
  DEFAULT_TEST_POSTGRES_URL,
  makeTempDir,
  removeTempDir,
} from '@railyard/testkit';
import express, { type Express } from 'express';
import request from 'supertest';
import { errorHandler } from '../http/errors';
import { ciLogRoutes } from '../routes/ci-logs';

jest.setTimeout(90_000);

/**
 * Two nodes that share only PostgreSQL: a runner process on node A's data dir, and the log route of an
 * API on node B's data dir (and one on A's, which shares A's disk with the runner).
 */
const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const TOKEN = 'read-secret-0123456789abcdef';
const ROOT = path.resolve(__dirname, '../../../..');
const RUNNER = path.join(ROOT, 'libs/ci/src/runner/testing/runner-process.ts');
const adminUrl = process.env.RAILYARD_TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let nodeA: string;
let nodeB: string;
let blobs: PostgresBlobStore;
let statuses: CommitStatusStore[] = [];
let children: ChildProcess[] = [];
const schema = `ci_logs_${randomUUID().slice(0, 8)}`;

/** The log route as an API on `dataDir` serves it, reading finished logs from the shared blob store. */
const apiOn = (dataDir: string): Express => {
  const gitRoot = path.join(dataDir, 'git');
  const store = localHostStatuses({ eventStore: new MemoryEventStore(), gitRoot });
  statuses.push(store);
  const ci = { statuses: store, commits: new CommitChecker(gitRoot), dataDir, logs: blobs };
  return express()
    .use(ciLogRoutes({ tokens: new TokenRegistry(parseTokenList(`dashboard:${TOKEN}:read`)) }, ci))
    .use(errorHandler(createLogger('test')));
};
const getLog = (app: Express, testRunId: string, check: string) =>
  request(app)
    .get(`/ci/logs/${testRunId}/${encodeURIComponent(check)}`)
    .set('x-api-token', TOKEN);

/** Runs checks in a runner process on node A; `once`: resolves when the run is done and the process exited. */
const runOnNodeA = async (checks: string, once: boolean): Promise<{ testRunId: string; exited: Promise<number | null> }> => {
  const sha = await commitOnBranch(path.join(nodeA, 'git'), repo, {
    branch: `b-${randomUUID()}`,
    files: { '.railyard.yml': `ci:\n${checks}` },
  });
  const testRunId = randomUUID();
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER], {
    cwd: ROOT,
    env: {
      ...process.env,
      RAILYARD_TEST_RUNNER: JSON.stringify({
        gitRoot: path.join(nodeA, 'git'),
        dataDir: nodeA,
        trigger: { repo, sha, branch: 'b', testRunId, timeoutMinutes: 5 },
        once,
        archive: { postgresUrl: db.url, schema },
      }),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return { testRunId, exited: new Promise((resolve) => child.once('exit', resolve)) };
};

const until = async (what: string, check: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
};

beforeAll(async () => {
  db = await createTestDatabase(adminUrl, 'ci logs');
  blobs = await PostgresBlobStore.open({ url: db.url, schema });
});

afterAll(async () => {
  await blobs.close();
  await db.drop();
});

beforeEach(async () => {
  nodeA = await makeTempDir('railyard-node-a-');
  nodeB = await makeTempDir('railyard-node-b-');
  await createRepoWithCommits(path.join(nodeA, 'git'), repo);
});

afterEach(async () => {
  // Killed and waited for: a runner still taking its checkout down would write into the directories removed below.
  await Promise.all(
    children
      .filter((child) => child.exitCode === null && child.signalCode === null)
      .map((child) => new Promise((resolve) => child.once('exit', resolve).kill('SIGKILL'))),
  );
  children = [];
  await Promise.all(statuses.map((s) => s.close()));
  statuses = [];
  await removeTempDir(nodeA);
  await removeTempDir(nodeB);
});

describe('GET /ci/logs/<testRunId>/<check> across nodes', () => {
  it('when a check finished on another node, then an API on its own data dir serves the log from the blob store', async () => {
    const { testRunId, exited } = await runOnNodeA('  unit: "echo from-node-a; exit 3"\n', true);
    expect(await exited).toBe(0);

    const res = await getLog(apiOn(nodeB), testRunId, 'unit');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toMatch(/^# railyard ci: check "unit"/);
    expect(res.text).toMatch(/from-node-a\n# exit code 3\n$/);
    await expect(fs.stat(path.join(nodeB, 'ci-logs'))).rejects.toThrow(/ENOENT/);
  });

  it('when a check is running on another node, then that node serves the live log and others say it is running', async () => {
    const { testRunId } = await runOnNodeA('  slow: "echo started-on-a; exec sleep 300"\n', false);
    const runnerNode = apiOn(nodeA);
    await until('the live log on node A', async () => (await getLog(runnerNode, testRunId, 'slow')).text.includes('started-on-a'));

    const elsewhere = await getLog(apiOn(nodeB), testRunId, 'slow');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.text).toContain('# this check is running; the node running it serves its log');
    expect(elsewhere.text).not.toContain('started-on-a');
  });

  it('when a dead runner left a log of an earlier attempt on this node, then the note of the running attempt is served, not the stale file', async () => {
    const testRunId = randomUUID();
    const file = ciLogFile(nodeB, testRunId, 'unit');
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, `# railyard ci: check "unit"\n# railyard ci: attempt ${randomUUID()}\nstale output\n`);
    const running = randomUUID();
    await blobs.putNamed(
      ciLogBlobName(testRunId, 'unit'),
      Buffer.from(`# railyard ci: attempt ${running}\n# this check is running; the node running it serves its log until it ends\n`),
    );

    const res = await getLog(apiOn(nodeB), testRunId, 'unit');
    expect(res.status).toBe(200);
    expect(res.text).toContain(running);
    expect(res.text).not.toContain('stale output');
  });

  it('when a finished log is over the archive limit, then its tail is kept behind a line saying how much was dropped', async () => {
    const lines = Math.ceil((MAX_ARCHIVED_LOG_BYTES + 100_000) / 50);
    const { testRunId, exited } = await runOnNodeA(`  big: "yes ${'x'.repeat(49)} | head -n ${lines}; echo the-verdict-line"\n`, true);
    expect(await exited).toBe(0);

    const res = await getLog(apiOn(nodeB), testRunId, 'big');
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(MAX_ARCHIVED_LOG_BYTES);
    expect(res.text).toMatch(/^# railyard ci: the first \d+ of \d+ bytes of this log were dropped;/);
    expect(res.text).toMatch(/the-verdict-line\n# exit code 0\n$|the-verdict-line\n# passed/);
    expect(res.text.split('\n')[1]).toBe('x'.repeat(49));
  });

  it('when retention swept a finished log, then every node answers 410 LOG_EXPIRED, the runner’s own included', async () => {
    const { testRunId, exited } = await runOnNodeA('  unit: "echo from-node-a"\n', true);
    expect(await exited).toBe(0);
    const later = new Date(Date.now() + 31 * 86_400_000);

    const pass = await sweepRetention({ events: new MemoryEventStore(), logs: blobs, days: 30, clock: () => later });

    expect(pass?.logs?.blobs).toBeGreaterThanOrEqual(1);
    for (const node of [nodeA, nodeB]) {
      const res = await getLog(apiOn(node), testRunId, 'unit');
      expect([res.status, res.body.error?.code]).toEqual([410, 'LOG_EXPIRED']);
      expect(res.body.error.message).toMatch(/expired under the retention setting/);
    }
  });

  it('when no node ran the check, then 404 LOG_NOT_FOUND', async () => {
    const res = await getLog(apiOn(nodeB), randomUUID(), 'unit');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('LOG_NOT_FOUND');
  });
});

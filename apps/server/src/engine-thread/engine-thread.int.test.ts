import { readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createLogger, registryText } from '@railyard/observability';
import type { EventStore } from '@railyard/eventstore';
import { loadConfig, openEventStore, type RailyardConfig } from '@railyard/runtime';
import {
  commitOnBranch,
  createRepoWithCommits,
  eventually,
  makeTempDir,
  openPr,
  processesNamed,
  processToken,
  removeTempDir,
} from '@railyard/testkit';
import { startServer, type RunningServer } from '../server';
import { startEngineThread, type EngineThread } from './start';

/** The embedded server's engine on a thread of its own (docs/decisions.md D46), with real git, SQLite and checks. */

jest.setTimeout(120_000);

const TOKEN = 'admin-secret-0123456789abcdef';
const repo = { host: 'git.local', owner: 'acme', name: 'widgets' };
const REPO = { repo, targetBranch: 'main' };
// The check writes a JUnit report: reports cross from the engine thread to the API's test health.
const RAILYARD_YML = 'ci:\n  unit: "sh ./check.sh"\nreports:\n  - junit.xml\nmerge:\n  required_statuses: [unit]\n';
const CHECK =
  'printf \'<testsuite name="cart" tests="1"><testcase name="adds items" classname="cart" file="src/cart.test.ts"/></testsuite>\' > junit.xml\n';

let dir: string;
const configIn = (d: string): RailyardConfig => {
  const base = loadConfig({});
  return {
    ...base,
    port: 0,
    dataDir: d,
    gitRoot: path.join(d, 'git'),
    apiTokens: `admin:${TOKEN}:admin`,
    eventStore: { kind: 'sqlite', file: path.join(d, 'events.sqlite'), synchronous: 'normal' },
    engine: { ...base.engine, enabled: true, thread: 'worker', tickMs: 200 },
    ci: { ...base.ci, sandbox: 'off' },
  };
};

beforeEach(async () => {
  dir = await makeTempDir('railyard-engine-thread-');
  await createRepoWithCommits(path.join(dir, 'git'), repo, {
    files: { 'README.md': '# widgets\n', '.railyard.yml': RAILYARD_YML, 'check.sh': CHECK },
  });
});
afterEach(() => removeTempDir(dir));

const post = async (server: RunningServer, route: string, body: unknown) => {
  const res = await fetch(`${server.url}/v1${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': TOKEN },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('the embedded server with its engine on a thread of its own', () => {
  it('when a PR is submitted, then the engine thread tests and merges it, its series reach /metrics and its check’s report reaches test health', async () => {
    const logs: string[] = [];
    const logger = createLogger('test', 'info');
    logger.on('data', (line: { message: string; engine?: string }) => logs.push(`${line.message} ${line.engine ?? ''}`));
    const server = await startServer(configIn(dir), { logger });
    try {
      expect(logs).toContain('railyard listening worker');
      await commitOnBranch(path.join(dir, 'git'), repo, { branch: 'feature', files: { 'hello.txt': 'hello\n' }, message: 'Say hello' });
      await openPr(path.join(dir, 'git'), { repo, number: 1, head: 'feature' });
      expect((await post(server, '/createQueue', REPO)).status).toBe(200);
      expect((await post(server, '/submitPullRequest', { ...REPO, pr: { number: 1 } })).status).toBe(200);
      await eventually(
        async () => (await post(server, '/getSubmittedPullRequest', { ...REPO, pr: { number: 1 } })).body.state === 'merged',
        'the PR is merged',
        60_000,
      );
      const metrics = await (await fetch(`${server.url}/v1/getMergeQueueMetrics`, { headers: { 'x-api-token': TOKEN } })).text();
      // Counted on the engine thread only: this thread's copy of the series stays at zero.
      expect(metrics).toMatch(/^railyard_engine_action_duration_seconds_count\{action="merge",outcome="ok"\} 1$/m);
      expect(metrics.split('\n').filter((l) => l === '# TYPE railyard_engine_action_duration_seconds histogram')).toHaveLength(1);
      const failures = [{ name: 'adds items', classname: 'cart', parent: 'cart', file: 'src/cart.test.ts' }];
      await eventually(
        async () => {
          const checked = await post(server, '/flaky-tests/check-failures', { repo, failures });
          const id = (checked.body.notQuarantined as { testId?: string }[] | undefined)?.[0]?.testId;
          return id !== undefined && (await post(server, '/flaky-tests/get-test-details', { repo, test_id: id })).status === 200;
        },
        'the check’s report is in test health',
        30_000,
      );
    } finally {
      await server.close();
    }
  });
});

describe('startEngineThread', () => {
  const quiet = createLogger('test', 'error');
  let store: EventStore;
  beforeEach(async () => {
    store = await openEventStore(configIn(dir));
  });
  afterEach(() => store.close());
  const start = (logger = quiet): Promise<EngineThread> =>
    startEngineThread({
      config: configIn(dir),
      selfUrl: 'http://127.0.0.1:1',
      logger,
      eventStore: store,
      uploadReports: async () => {},
      restartMs: 50,
    });

  it('when the thread ends on its own, then it is logged and started again, and its series are scraped from the new one', async () => {
    const errors: string[] = [];
    const logger = createLogger('test', 'error');
    logger.on('data', (line: { message: string }) => errors.push(line.message));
    const thread = await start(logger);
    try {
      const first = thread.threadId();
      await thread.crashForTest();
      await eventually(() => thread.threadId() !== null && thread.threadId() !== first, 'a new thread runs', 30_000);
      expect(errors).toContain('engine thread ended; starting it again');
      expect(await registryText()).toContain('# TYPE railyard_engine_pass_failures_total counter');
    } finally {
      await thread.stop();
    }
    expect(thread.threadId()).toBeNull();
  });

  // On Linux getpriority answers for one thread when given its kernel id.
  const nicenessOfTasks = (): number[] => readdirSync('/proc/self/task').map((tid) => getPriority(Number(tid)));

  it('when the thread starts, then it runs 10 nicer than the server’s threads (D47), and not when 0 is set', async () => {
    const base = getPriority();
    const nicer = Math.min(19, base + 10);
    expect(configIn(dir).engine.threadNiceness).toBe(10);
    const thread = await start();
    try {
      expect(nicenessOfTasks().filter((n) => n === nicer)).toHaveLength(1);
    } finally {
      await thread.stop();
    }
    const config = configIn(dir);
    const unniced = await startEngineThread({
      config: { ...config, engine: { ...config.engine, threadNiceness: 0 } },
      selfUrl: 'http://127.0.0.1:1',
      logger: quiet,
      eventStore: store,
      uploadReports: async () => {},
    });
    try {
      expect(nicenessOfTasks().every((n) => n === base)).toBe(true);
    } finally {
      await unniced.stop();
    }
  });

  it('when the thread ends on its own while a check runs, then that check’s processes end with it and the new thread runs it again', async () => {
    const token = processToken('orphan');
    const checkPids = (): Promise<number[]> => processesNamed(token);
    const git = path.join(dir, 'git');
    await commitOnBranch(git, repo, {
      branch: 'main',
      files: { '.railyard.yml': `ci:\n  slow: "exec -a ${token} sleep 300"\nmerge:\n  required_statuses: [slow]\n` },
      message: 'A slow check',
    });
    await commitOnBranch(git, repo, { branch: 'feature', files: { 'hello.txt': 'hello\n' }, message: 'Say hello' });
    await openPr(git, { repo, number: 1, head: 'feature' });
    const config = configIn(dir);
    const api = await startServer({ ...config, engine: { ...config.engine, enabled: false } }, { logger: quiet });
    try {
      expect((await post(api, '/createQueue', REPO)).status).toBe(200);
      expect((await post(api, '/submitPullRequest', { ...REPO, pr: { number: 1 } })).status).toBe(200);
    } finally {
      await api.close();
    }
    const thread = await start();
    try {
      await eventually(async () => (await checkPids()).length > 0, 'the check runs', 30_000);
      const first = await checkPids();
      await thread.crashForTest();
      await eventually(async () => !(await checkPids()).some((pid) => first.includes(pid)), 'the crashed thread’s check ended', 15_000);
      // The thread started again finds the run still testing and starts its check again.
      await eventually(async () => (await checkPids()).some((pid) => !first.includes(pid)), 'the new thread runs the check again', 30_000);
    } finally {
      await thread.stop();
    }
    await eventually(async () => (await checkPids()).length === 0, 'no check is left', 15_000);
  });

  it('when the thread cannot start, then starting rejects with its reason and the thread ends', async () => {
    // The process's OS threads: a worker thread is one of them while it runs.
    const threads = () => readdirSync('/proc/self/task').length;
    const before = threads();
    const config = configIn(dir);
    // A file where the data dir would need a directory: the event store cannot be opened.
    await writeFile(path.join(dir, 'plain-file'), 'x');
    const blocked = path.join(dir, 'plain-file', 'events.sqlite');
    await expect(
      startEngineThread({
        config: { ...config, eventStore: { kind: 'sqlite', file: blocked, synchronous: 'normal' } },
        selfUrl: 'http://127.0.0.1:1',
        logger: quiet,
        eventStore: store,
        uploadReports: async () => {},
      }),
    ).rejects.toThrow(/the engine thread did not start/);
    await eventually(() => threads() === before, 'the failed thread ended', 10_000);
  });
});

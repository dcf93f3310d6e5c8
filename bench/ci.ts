import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { buildApp, ciPageRouters, ciRouters, inProcessProjector, ProjectionHealth, QueueCommands } from '@railyard/api';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { CommitChecker, LocalCiRunner } from '@railyard/ci';
import { queueIdOf } from '@railyard/domain';
import { MemoryBlobStore, MemoryEventStore, SqliteEventStore } from '@railyard/eventstore';
import { LocalGitHost, localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { MemoryReadModelStore } from '@railyard/readmodels';
import * as readModelTesting from '@railyard/readmodels/testing';
import { testRunTesting } from '@railyard/readmodels/testing';
import { commitOnBranch, createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { positiveIntFromEnv } from './support/settings';

/**
 * `npm run bench -- ci`: the costs the CI pieces add to a run, on the local disk.
 *
 *   ci-status-set          one status written: an event appended to the SQLite event store, the
 *                          commit's stream read back (docs/ci.md, "Commit statuses")
 *   ci-status-list         one commit's statuses read (its stream, and the old status file looked for)
 *   ci-status-notify       a status set by one store until a store on another connection to the same
 *                          SQLite file in this process hears it (the embedded server's shape)
 *   ci-status-notify-process  the same, the listener in a process of its own (an engine beside API
 *                          processes), hearing it through the event store's subscription
 *   ci-check-overhead      trigger → final status of a check that does nothing (`true`): checkout,
 *                          process group, clean-up; concurrency 1
 *   ci-testing-details     one getMergeQueueTestingDetails over HTTP (memory read models)
 *
 *   BENCH_CI_STATUSES   statuses written and read (2000)
 *   BENCH_CI_NOTIFY     notifications timed (200)
 *   BENCH_CI_CHECKS     trivial checks run (30)
 *   BENCH_CI_DETAILS    details requests (2000)
 */

const REPO = { host: 'bench.local', owner: 'acme', name: 'ci' };
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const progress = (line: string): void => void process.stderr.write(`[bench ci] ${line}\n`);

const summary = (name: string, samples: number[], extra: object = {}): object => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const total = samples.reduce((a, b) => a + b, 0);
  return {
    name,
    n: samples.length,
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    maxMs: round(at(1)),
    perSecond: round((samples.length / total) * 1000, 0),
    ...extra,
  };
};

const shaOf = (i: number): string => i.toString(16).padStart(40, '0');

export const run = async function* (): AsyncIterable<object> {
  const dir = await makeTempDir('railyard-bench-ci-');
  const gitRoot = path.join(dir, 'git');
  await createRepoWithCommits(gitRoot, REPO, { files: { 'README.md': '# ci\n' } });
  const file = path.join(dir, 'events.sqlite');
  const eventStore = new SqliteEventStore({ file });
  const store = localHostStatuses({ eventStore, gitRoot });
  try {
    const statuses = positiveIntFromEnv('BENCH_CI_STATUSES', 2000);
    progress(`${statuses} status writes`);
    const set: number[] = [];
    for (let i = 0; i < statuses; i++) {
      const t0 = performance.now();
      await store.set(REPO, shaOf(i % 500), { context: `check-${i % 4}`, state: 'success', targetUrl: 'http://ci.test/x' });
      set.push(performance.now() - t0);
    }
    yield summary('ci-status-set', set);
    const list: number[] = [];
    for (let i = 0; i < statuses; i++) {
      const t0 = performance.now();
      await store.list(REPO, shaOf(i % 500));
      list.push(performance.now() - t0);
    }
    yield summary('ci-status-list', list);

    const notifyCount = positiveIntFromEnv('BENCH_CI_NOTIFY', 200);
    progress(`${notifyCount} notifications to a store on another connection, then to another process`);
    const otherConnection = new SqliteEventStore({ file });
    const listener = localHostStatuses({ eventStore: otherConnection, gitRoot });
    const inProcess = await timeNotifications(store, notifyCount, 100_000, async (heard) => {
      const off = listener.onChange((_repo, sha) => heard(sha));
      await listener.whenListening();
      return async () => {
        off();
        await listener.close();
        await otherConnection.close();
      };
    });
    yield summary('ci-status-notify', inProcess, { note: 'another connection in this process: woken by the append, no polling' });
    const otherProcess = await timeNotifications(store, notifyCount, 200_000, (heard) => listenInChild(file, gitRoot, heard));
    yield summary('ci-status-notify-process', otherProcess, {
      note: "a listener process of its own (the engine's side): woken by the writer's touch of events.sqlite-appended, 25 ms poll behind it",
    });

    const checks = positiveIntFromEnv('BENCH_CI_CHECKS', 30);
    progress(`${checks} trivial checks`);
    const sha = await commitOnBranch(gitRoot, REPO, { branch: 'bench', files: { '.railyard.yml': 'ci:\n  noop: "true"\n' } });
    const runner = new LocalCiRunner({ gitRoot, dataDir: dir, statuses: store, publicUrl: () => 'http://127.0.0.1:1', concurrency: 1 });
    const overhead: number[] = [];
    for (let i = 0; i < checks; i++) {
      const testRunId = randomUUID();
      const t0 = performance.now();
      await runner.trigger({ repo: REPO, sha, branch: 'bench', testRunId, timeoutMinutes: 5 });
      await runner.whenDone(testRunId);
      overhead.push(performance.now() - t0);
    }
    await runner.close();
    yield summary('ci-check-overhead', overhead);

    yield await detailsLatency(dir, gitRoot, store, positiveIntFromEnv('BENCH_CI_DETAILS', 2000));
  } finally {
    await store.close();
    await eventStore.close();
    await removeTempDir(dir);
  }
};

/** Sets a status on a fresh commit and waits until the listener `subscribe` set up hears it, `count` times. */
const timeNotifications = async (
  store: CommitStatusStore,
  count: number,
  firstSha: number,
  subscribe: (heard: (sha: string) => void) => Promise<() => Promise<void>>,
): Promise<number[]> => {
  const waiting = new Map<string, () => void>();
  const stop = await subscribe((sha) => waiting.get(sha)?.());
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const sha = shaOf(firstSha + i);
      const heard = new Promise<void>((resolve) => waiting.set(sha, resolve));
      const t0 = performance.now();
      await store.set(REPO, sha, { context: 'n', state: 'success' });
      await heard;
      samples.push(performance.now() - t0);
      waiting.delete(sha);
    }
  } finally {
    await stop();
  }
  return samples;
};

/** A listener process (support/status-listener.child.ts) on the same SQLite file; resolves once it listens. */
const listenInChild = async (file: string, gitRoot: string, heard: (sha: string) => void): Promise<() => Promise<void>> => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'support/status-listener.child.ts'), JSON.stringify({ file, gitRoot })],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the listener process exited with ${String(code)}`)));
    createInterface({ input: child.stdout }).on('line', (line) => (line === 'ready' ? resolve() : heard(line)));
  });
  await ready;
  return async () => {
    child.stdin.end();
    await exited;
  };
};

const detailsLatency = async (dir: string, gitRoot: string, statuses: CommitStatusStore, count: number): Promise<object> => {
  progress(`${count} testing-details requests`);
  const { RecordedEventFactory, prSubmitted, queueCreated } = readModelTesting;
  const { testRunStarted, statusReported } = testRunTesting;
  const queueId = queueIdOf(REPO, 'main');
  const readModels = new MemoryReadModelStore();
  const f = new RecordedEventFactory();
  const runId = randomUUID();
  await readModels.apply(
    f.record(
      queueId,
      queueCreated(queueId, new Date().toISOString()),
      ...[1, 2, 3, 4].map((n) => prSubmitted(n, new Date().toISOString())),
      testRunStarted(runId, new Date().toISOString(), { prNumbers: [4], dependentPrs: [1, 2, 3] }),
      ...['unit', 'lint', 'e2e'].map((c) =>
        statusReported(runId, new Date().toISOString(), c, 'success', `http://railyard.test/ci/logs/${runId}/${c}`),
      ),
    ),
  );
  const logger = createLogger('bench', 'error');
  const token = 'bench-read-token-0123456789';
  const eventStore = new MemoryEventStore();
  const deps = {
    commands: new QueueCommands(eventStore, readModels, logger, { clock: { now: () => new Date() } }),
    readModels,
    projection: new ProjectionHealth({ eventStore, readModels, presence: inProcessProjector, maxLagMs: 10_000 }),
    gitHost: new LocalGitHost({ root: gitRoot }),
    blobs: new MemoryBlobStore(),
    tokens: new TokenRegistry(parseTokenList(`bench:${token}:read`)),
    logger,
  };
  const ci = { statuses, commits: new CommitChecker(gitRoot), dataDir: dir };
  const server = buildApp(deps, ciRouters(deps, ci), ciPageRouters(deps, ci)).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/getMergeQueueTestingDetails`;
  const body = JSON.stringify({ repo: REPO, targetBranch: 'main', testRunId: runId });
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-token': token }, body });
      await res.text();
      if (res.status !== 200) throw new Error(`details answered ${res.status}`);
      samples.push(performance.now() - t0);
    }
  } finally {
    server.close();
    server.closeAllConnections();
  }
  return summary('ci-testing-details', samples, { note: 'sequential, one client, keep-alive' });
};

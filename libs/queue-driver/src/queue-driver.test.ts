import { initialQueueState, type Action, type EngineCommand, type QueueEvent, type QueueState } from '@railyard/domain';
import type { CiPort } from './ci/port';
import type { CodeHost, TestBranchBuilt } from './host/port';
import { QueueDriver, type DriverHop } from './queue-driver';

/**
 * QueueDriver against ports that only record what they are asked, and a planner the test writes:
 * what the driver itself decides (order, concurrency, what it drops), not what the planner does.
 */
const REPO = { host: 'git.test', owner: 'acme', name: 'widgets' };
const SHA = (n: number): string => n.toString(16).padStart(40, '0');

const queue = (): QueueState => ({ ...initialQueueState(), exists: true, queueId: 'q', repo: REPO, branch: 'main' });

const startOf = (pr: number): Extract<Action, { kind: 'startRun' }> => ({
  kind: 'startRun',
  prNumber: pr,
  prNumbers: [pr],
  stack: [],
  dependentPrs: [],
  baseSha: SHA(1),
  baseTree: SHA(2),
});

interface Deferred {
  resolve(b: TestBranchBuilt): void;
}

interface BedOptions {
  startConcurrency?: number;
  build?: (pr: number) => Promise<TestBranchBuilt>;
  /** The queue the log answers, the target the facts answer and host calls beyond building and deleting. */
  state?: QueueState;
  target?: { sha: string; tree: string };
  host?: Partial<CodeHost>;
}

const bed = (plans: Action[][], opts: BedOptions = {}) => {
  const calls: string[] = [];
  const recorded: EngineCommand[] = [];
  const hops: DriverHop[] = [];
  let building = 0;
  let mostBuilding = 0;
  const host = {
    buildTestBranch: async (_repo: unknown, req: { prNumber: number }) => {
      building++;
      mostBuilding = Math.max(mostBuilding, building);
      calls.push(`build ${req.prNumber}`);
      try {
        return await (opts.build?.(req.prNumber) ??
          Promise.resolve({ ok: true, branch: `b${req.prNumber}`, sha: SHA(100 + req.prNumber), tree: SHA(3), steps: [] }));
      } finally {
        building--;
      }
    },
    deleteBranch: async (_repo: unknown, branch: string) => void calls.push(`delete ${branch}`),
    ...opts.host,
  } as unknown as CodeHost;
  const ci = {
    trigger: async (req: { branch: string }) => void calls.push(`trigger ${req.branch}`),
    cancel: async () => undefined,
    isRunning: () => true,
    resolveRequiredStatuses: async () => ({ statuses: ['test'], source: 'merge_instance' as const }),
  } as unknown as CiPort;
  let round = 0;
  const driver = new QueueDriver({
    log: {
      read: async () => opts.state ?? queue(),
      execute: async (command): Promise<readonly QueueEvent[]> => {
        recorded.push(command);
        calls.push(`record ${command.type}`);
        return [{ type: 'PrFailed', data: { prNumber: 0, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: '', at: '' } } as QueueEvent];
      },
    },
    facts: {
      read: async () => ({}) as never,
      target: async () => opts.target ?? null,
      forgetPull: () => undefined,
      forgetTarget: () => undefined,
    },
    host,
    ci,
    logger: { info: () => undefined, warn: () => undefined },
    now: () => new Date('2026-01-01T00:00:00Z'),
    newRunId: (() => {
      let n = 0;
      return () => `run-${++n}`;
    })(),
    plan: () => plans[round++] ?? [],
    observeHop: (hop) => hops.push(hop),
    ...(opts.startConcurrency !== undefined ? { startConcurrency: opts.startConcurrency } : {}),
  });
  return { driver, calls, recorded, hops, mostBuilding: () => mostBuilding };
};

describe('QueueDriver', () => {
  it('when the planner has nothing to do, then the pass settles and asks neither the host nor CI anything', async () => {
    const b = bed([]);
    expect(await b.driver.pass()).toBe('settled');
    expect(b.calls).toEqual([]);
    expect(b.driver.stats).toEqual({ passes: 1, rounds: 0, actions: 0 });
  });

  it('when a pass settles with no PR in the queue, then the driver is idle; with a PR waiting, it is not', async () => {
    const empty = bed([]);
    await empty.driver.pass();
    expect(empty.driver.idle).toBe(true);
    const waiting = queue();
    waiting.entries.set(1, { prNumber: 1, state: 'pending' } as never);
    const holding = bed([], { state: waiting });
    await holding.driver.pass();
    expect(holding.driver.idle).toBe(false);
  });

  it('when a run is due to report within moments, then the pass tells the owner when its window closes; else nothing', async () => {
    const due = queue();
    // Runs take 60 s steadily (a 1.2 s window); this one started 59 s before the driver's clock.
    due.runTimes = { meanMs: 60_000, deviationMs: 0, count: 5 };
    due.runs.set('r1', {
      testRunId: 'r1',
      status: 'testing',
      bisection: false,
      prNumbers: [1],
      createdAt: '2025-12-31T23:59:01.000Z',
    } as never);
    const b = bed([], { state: due });
    await b.driver.pass();
    expect(b.driver.wakeInMs).toBe(2_200);
    const quiet = bed([]);
    await quiet.driver.pass();
    expect(quiet.driver.wakeInMs).toBeUndefined();
  });

  it('when a round starts several runs, then their branches are built at once up to startConcurrency and recorded in plan order', async () => {
    const pending: Deferred[] = [];
    const b = bed([[startOf(1), startOf(2), startOf(3)]], {
      startConcurrency: 2,
      build: (pr) =>
        new Promise<TestBranchBuilt>((resolve) =>
          pending.push({ resolve: () => resolve({ ok: true, branch: `b${pr}`, sha: SHA(100 + pr), tree: SHA(3), steps: [] }) }),
        ),
    });
    const pass = b.driver.pass();
    // Let the first two builds begin, then finish them last-first: the records still go in plan order.
    await new Promise((r) => setImmediate(r));
    expect(b.calls).toEqual(['build 1', 'build 2']);
    pending[1]?.resolve(undefined as never);
    pending[0]?.resolve(undefined as never);
    await new Promise((r) => setImmediate(r));
    pending[2]?.resolve(undefined as never);
    expect(await pass).toBe('settled');
    expect(b.mostBuilding()).toBe(2);
    expect(b.calls.filter((c) => !c.startsWith('build'))).toEqual([
      'record StartTestRun',
      'trigger b1',
      'record StartTestRun',
      'trigger b2',
      'record StartTestRun',
      'trigger b3',
    ]);
  });

  it('when a run of the round does not apply, then its PR fails, the branches built behind it are deleted, and the planner decides again', async () => {
    const b = bed([[startOf(1), startOf(2), startOf(3)], []], {
      build: async (pr) =>
        pr === 2
          ? { ok: false, conflict: { number: 2, with: 'base', paths: ['a.txt'] } }
          : { ok: true, branch: `b${pr}`, sha: SHA(100 + pr), tree: SHA(3), steps: [] },
    });
    expect(await b.driver.pass()).toBe('settled');
    expect(b.recorded.map((c) => c.type)).toEqual(['StartTestRun', 'FailPr']);
    expect(b.recorded[1]).toMatchObject({ prNumber: 2, reason: 'START_TEST_RUN_MERGE_CONFLICT' });
    expect(b.calls).toContain('delete b3');
    expect(b.calls).not.toContain('trigger b3');
    expect(b.driver.stats.rounds).toBe(1);
  });

  it('when a pass wakes up and starts a check, then the hops are observed in the order they happen', async () => {
    const b = bed([[startOf(1)]]);
    await b.driver.pass();
    expect(b.hops).toEqual(['decided', 'branch_built', 'check_started']);
  });

  it('when a pass merges a PR, then the merge landing is a hop between the decision and the next check', async () => {
    const entry = { prNumber: 1, state: 'tests_passed', headSha: SHA(7) } as unknown as QueueState['entries'] extends Map<number, infer E>
      ? E
      : never;
    const merge: Action = {
      kind: 'merge',
      prNumber: 1,
      testRunId: 'run-0',
      index: 0,
      before: { sha: SHA(1), tree: SHA(2) },
      after: { sha: SHA(8), tree: SHA(9) },
      onto: SHA(1),
    };
    const b = bed([[merge], [startOf(2)]], {
      state: { ...queue(), entries: new Map([[1, entry]]) },
      target: { sha: SHA(1), tree: SHA(2) },
      host: {
        pullRequest: async () => ({ number: 1, state: 'open', headSha: SHA(7), baseBranch: 'main' }) as never,
        land: async () => ({ landed: true }) as never,
        markMerged: async () => undefined,
      },
    });
    await b.driver.pass();
    expect(b.hops).toEqual(['decided', 'merge_landed', 'branch_built', 'check_started']);
  });

  it('when a round sweeps old test branches, then the checks it starts do not wait for their deletion, and the pass ends after it', async () => {
    const released: (() => void)[] = [];
    const b = bed([[{ kind: 'deleteBranch', branch: 'old-1' }, { kind: 'deleteBranch', branch: 'old-2' }, startOf(1)]], {
      host: {
        deleteBranch: (_repo: unknown, branch: string) =>
          new Promise<void>((resolve) => released.push(() => resolve(void b.calls.push(`delete ${branch}`)))),
      },
    });
    let ended = false;
    const pass = b.driver.pass().finally(() => (ended = true));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    // One deletion at a time, once the round's start is done: the check was triggered before the first began.
    expect(b.calls).toEqual(['build 1', 'record StartTestRun', 'trigger b1']);
    expect(released).toHaveLength(1);
    expect(ended).toBe(false);
    released[0]?.();
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    released[1]?.();
    expect(await pass).toBe('settled');
    expect(b.calls.slice(3)).toEqual(['delete old-1', 'delete old-2']);
  });

  it('when a swept branch cannot be deleted, then the pass still starts its checks and fails at its end', async () => {
    const b = bed([[{ kind: 'deleteBranch', branch: 'old' }, startOf(1)]], {
      host: { deleteBranch: async () => Promise.reject(new Error('locked')) },
    });
    await expect(b.driver.pass()).rejects.toThrow('locked');
    expect(b.calls).toContain('trigger b1');
  });

  it('when the planner keeps acting past maxRounds, then the pass yields and says there is more', async () => {
    const b = bed(Array.from({ length: 500 }, () => [startOf(1)]));
    expect(await b.driver.pass()).toBe('more');
    expect(b.driver.stats.rounds).toBe(200);
  });

  it('when the driver is stopped, then the next pass ends at once', async () => {
    const b = bed([[startOf(1)]]);
    b.driver.stop();
    expect(await b.driver.pass()).toBe('settled');
    expect(b.calls).toEqual([]);
  });
});

import { loadavg } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  decide,
  evolve,
  foldQueue,
  initialQueueState,
  plan,
  type DecideContext,
  type HostFacts,
  type QueueCommand,
  type QueueEvent,
  type QueueState,
} from '@railyard/domain';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { metricsFoldCurve } from './scale-metrics';
import { projectorCurve } from './scale-projector';
import { queuesCurve } from './scale-queues';
import { distributedReadyCurve } from './scale-ready-distributed';
import { procCpuSeconds, ready, readyCurve, seed } from './scale-ready';
import { submitCurve } from './scale-submit';
import { procKb, startEmbeddedServer } from './support/embedded-server';
import { workload } from './support/workload';

/**
 * `npm run bench -- scale [state|queue|projector|start|ready|queues|ready-distributed|metrics-redis|submit] [sizes...]`: how cost grows with history and with queue
 * length (issue 29). Each curve prints one line per size and one `…/exponent` line: the least-squares
 * slope of log(cost) against log(size), 0 for flat, 1 for linear.
 *
 *   state  one queue's stream of N events (the rebuild workload, one queue): fold it as the command
 *          handler and the engine do, then the entries the folded state holds, its heap, and the CPU of
 *          one plan() and of one submit (decide + evolve) on it. Default N: 10k, 100k, 300k.
 *   queue  one paused queue holding N active PRs: CPU of one re-submit (decide + evolve + plan), what
 *          the engine does per event. Default N: 10, 500, 5,000.
 *   projector  the same queue in Redis read models (the distributed shape's read side): CPU of the
 *          projector and of Redis per re-submit batch (scale-projector.ts). Default N: 10, 500, 5,000.
 *   start  the embedded server (engine off) over a SQLite log of N events (20 queues): time from spawn
 *          to the first 200 on /readyz, resident set then and at its peak. Default N: 10k, 100k, 300k.
 *   ready  the same with the engine on, snapshots off against resumed from them: time to /readyz, RSS
 *          then, the engine's catch-up after it (scale-ready.ts). Not run unless named. Default N:
 *          100k, 300k, 1M.
 *   queues  N idle queues read in turn as the engine's tick does: CPU per queue per read of the queue
 *          command handler, with its budget before D321 and as shipped (scale-queues.ts). Not run
 *          unless named. Default N: 500, 1,000, 2,000, 5,000.
 *   ready-distributed  the distributed shape (PostgreSQL log, Redis read models and engine snapshot):
 *          resumed start of the projector, API and engine, each: CPU and RSS at ready
 *          (scale-ready-distributed.ts). Not run unless named. Default N: 100k, 300k, 1M.
 *   metrics-redis  the Redis metrics projection alone folded from position 0 over N events of the
 *          rebuild workload: CPU of the folding process and of Redis, what the model stores
 *          (scale-metrics.ts). Not run unless named. Default N: 300k, 1M, 2M.
 *   submit  one paused queue holding N active PRs, re-submitted over HTTP one at a time: p50 and CPU of
 *          the server's processes per request, embedded (engine on) and distributed (API + projector,
 *          PostgreSQL + Redis) (scale-submit.ts). Not run unless named. Default N: 10, 500, 5,000.
 *
 * CPU times (process.cpuUsage) are reported beside wall times: on a loaded machine they stay honest.
 * Every line carries the 1-minute load average so a noisy run can be told apart.
 */

const EPOCH = Date.UTC(2025, 0, 6);
const REPO = { host: 'bench.local', owner: 'acme', name: 'scale' };
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const progress = (line: string): void => void process.stderr.write(`[bench scale] ${line}\n`);
const load = (): number => round(loadavg()[0] ?? 0);
const cpuUs = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return d.user + d.system;
};

/** Least-squares slope of log(y) on log(x): the growth exponent of a curve. */
export const growthExponent = (points: { x: number; y: number }[]): number => {
  const pts = points.filter((p) => p.x > 0 && p.y > 0).map((p) => ({ x: Math.log(p.x), y: Math.log(p.y) }));
  if (pts.length < 2) return NaN;
  const mx = pts.reduce((a, p) => a + p.x, 0) / pts.length;
  const my = pts.reduce((a, p) => a + p.y, 0) / pts.length;
  const num = pts.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const den = pts.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return round(num / den);
};

const exponents = (name: string, rows: Record<string, number>[], x: string, ys: string[]): object => ({
  name: `${name}/exponent`,
  ...Object.fromEntries(ys.map((y) => [y, growthExponent(rows.map((r) => ({ x: r[x] as number, y: r[y] as number })))])),
});

/** A curve's rows, each with the load average when it is printed, then the curve's growth exponents. */
async function* curve(name: string, rows: Record<string, number>[], x: string, ys: string[]): AsyncIterable<object> {
  for (const r of rows) yield { name, load: load(), ...r };
  yield exponents(name, rows, x, ys);
}

const facts = (): HostFacts => ({ target: { sha: 'main-0', tree: 'tree-0' }, pulls: new Map(), statuses: new Map(), testBranches: [] });

const submit = (n: number): QueueCommand => ({
  type: 'SubmitPullRequest',
  pr: { number: n, title: `PR ${n}`, author: 'bench', headSha: `head-${n}`, baseBranch: 'main', state: 'open', mergeability: 'mergeable' },
});

/** Mean CPU microseconds of `fn` over `times` calls. */
const cpuPerCall = (times: number, fn: (i: number) => void): number => {
  const before = process.cpuUsage();
  for (let i = 0; i < times; i++) fn(i);
  return round(cpuUs(before) / times, 1);
};

// A full collection before each heap reading, without asking `npm run bench` for --expose-gc.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = (): number => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

const stateCurve = (sizes: number[]): Record<string, number>[] =>
  sizes.map((events) => {
    const heapBefore = heapMb();
    const stream: QueueEvent[] = [];
    for (const a of workload({ events, queues: 1, seed: 3 }))
      for (const e of a.events) stream.push({ type: e.type, data: e.data } as QueueEvent);
    const cpu = process.cpuUsage();
    let state: QueueState = foldQueue(stream);
    const foldMs = cpuUs(cpu) / 1000;
    stream.length = 0;
    // What the folded state holds on to once the events it was folded from are gone.
    const heap = heapMb() - heapBefore;
    const now = new Date(EPOCH).toISOString();
    const planUs = cpuPerCall(50, () => plan(state, now, facts()));
    let ids = 0;
    const ctx: DecideContext = { now, newId: () => `bench-${++ids}` };
    const submitUs = cpuPerCall(50, (i) => {
      for (const e of decide(state, submit(10_000_000 + i), ctx)) state = evolve(state, e);
    });
    const row = {
      events,
      entries: state.entries.size,
      runs: state.runs.size,
      foldCpuMs: round(foldMs),
      heapMb: round(heap),
      planUs,
      submitUs,
    };
    progress(JSON.stringify(row));
    return row;
  });

const queueCurve = (sizes: number[]): Record<string, number>[] =>
  sizes.map((prs) => {
    let state = initialQueueState();
    let ids = 0;
    const ctx: DecideContext = { now: new Date(EPOCH).toISOString(), newId: () => `entry-${++ids}` };
    const run = (c: QueueCommand): void => {
      for (const e of decide(state, c, ctx)) state = evolve(state, e);
    };
    run({ type: 'CreateQueue', queueId: 'bench', repo: REPO, branch: 'main', requiredStatuses: ['tests'], state: 'paused' });
    for (let n = 1; n <= prs; n++) run(submit(n));
    // A re-submit with a new priority is an event on an active PR; the engine then plans the queue again.
    const resubmitUs = cpuPerCall(200, (i) => {
      run({ ...submit(1 + (i % prs)), priority: i % 2 === 0 ? 'high' : 'medium' } as QueueCommand);
      plan(state, ctx.now, facts());
    });
    const row = { prs, entries: state.entries.size, resubmitCpuUs: resubmitUs };
    progress(JSON.stringify(row));
    return row;
  });

/** One start of the embedded server on `dir`, until /readyz answers 200, then a clean stop. */
const timeStart = async (dir: string): Promise<Record<string, number>> => {
  const started = process.hrtime.bigint();
  const server = await startEmbeddedServer(dir, 'bench-scale-token');
  try {
    while (!(await ready(server.url))) await new Promise((r) => setTimeout(r, 20));
    const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
    const pid = server.proc.pid ?? 0;
    return {
      readyMs: round(readyMs, 0),
      cpuSeconds: round(procCpuSeconds(pid)),
      rssMb: round(procKb(pid, 'VmRSS') / 1024, 0),
      peakMb: round(procKb(pid, 'VmHWM') / 1024, 0),
    };
  } finally {
    await server.stop();
  }
};

const startCurve = async (sizes: number[]): Promise<Record<string, number>[]> => {
  const rows: Record<string, number>[] = [];
  for (const events of sizes) {
    const dir = await makeTempDir('railyard-bench-scale-');
    try {
      progress(`start: seeding ${events} events`);
      await seed(path.join(dir, 'events.sqlite'), events);
      // The first start folds the whole log; a clean stop leaves a snapshot the second start resumes from.
      const cold = await timeStart(dir);
      const resumed = await timeStart(dir);
      const row = {
        events,
        ...cold,
        ...Object.fromEntries(Object.entries(resumed).map(([k, v]) => [`resumed${k[0]?.toUpperCase()}${k.slice(1)}`, v])),
      };
      progress(JSON.stringify(row));
      rows.push(row);
    } finally {
      await removeTempDir(dir);
    }
  }
  return rows;
};

const sizesOr = (args: string[], fallback: number[]): number[] => {
  const given = args.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
  return given.length > 0 ? given : fallback;
};

export async function* run(args: string[] = []): AsyncIterable<object> {
  const names = ['state', 'queue', 'projector', 'start', 'ready', 'queues', 'ready-distributed', 'metrics-redis', 'submit'];
  // `ready` seeds and starts a server three times per size (minutes at 1M events): only when named.
  const onlyNamed = ['ready', 'queues', 'ready-distributed', 'metrics-redis', 'submit'];
  const curves = names.filter((c) => (!args.some((a) => names.includes(a)) && !onlyNamed.includes(c)) || args.includes(c));
  const sizes = args.filter((a) => /^\d+$/.test(a));
  if (curves.includes('state')) {
    yield* curve('scale/state', stateCurve(sizesOr(sizes, [10_000, 100_000, 300_000])), 'events', [
      'entries',
      'foldCpuMs',
      'heapMb',
      'planUs',
      'submitUs',
    ]);
  }
  if (curves.includes('queue')) {
    yield* curve('scale/queue', queueCurve(sizesOr(sizes, [10, 500, 5_000])), 'prs', ['resubmitCpuUs']);
  }
  if (curves.includes('projector')) {
    yield* curve('scale/projector', await projectorCurve(sizesOr(sizes, [10, 500, 5_000]), progress), 'prs', [
      'resubmitCpuUs',
      'resubmitWallUs',
      'redisCpuUs',
      'queueAnswerBuildCpuUs',
      'queueAnswerStoredCpuUs',
      'prAnswerCpuUs',
    ]);
  }
  if (curves.includes('metrics-redis')) {
    yield* curve('scale/metrics-redis', await metricsFoldCurve(sizesOr(sizes, [300_000, 1_000_000, 2_000_000]), progress), 'events', [
      'foldCpuS',
      'redisCpuS',
      'storedKb',
      'failedPerQueue',
    ]);
  }
  if (curves.includes('start')) {
    yield* curve('scale/start', await startCurve(sizesOr(sizes, [10_000, 100_000, 300_000])), 'events', [
      'readyMs',
      'cpuSeconds',
      'rssMb',
      'peakMb',
      'resumedReadyMs',
      'resumedCpuSeconds',
      'resumedRssMb',
    ]);
  }
  if (curves.includes('queues')) {
    yield* curve('scale/queues', await queuesCurve(sizesOr(sizes, [500, 1_000, 2_000, 5_000]), progress), 'queues', [
      'beforeReadCpuUs',
      'readCpuUs',
    ]);
  }
  if (curves.includes('ready')) {
    yield* curve('scale/ready', await readyCurve(sizesOr(sizes, [100_000, 300_000, 1_000_000]), progress), 'events', [
      'replayReadyMs',
      'replayReadyCpuS',
      'replayRssMb',
      'replayCatchUpMs',
      'replayCatchUpCpuS',
      'replayPeakMb',
      'firstReadyCpuS',
      'firstRssMb',
      'firstPeakMb',
      'resumedReadyMs',
      'resumedReadyCpuS',
      'resumedRssMb',
      'resumedCatchUpMs',
      'resumedCatchUpCpuS',
      'resumedPeakMb',
    ]);
  }
  if (curves.includes('submit')) {
    yield* curve('scale/submit', await submitCurve(sizesOr(sizes, [10, 500, 5_000]), progress), 'prs', [
      'embeddedP50Ms',
      'embeddedCpuMsPerSubmit',
      'distributedP50Ms',
      'distributedCpuMsPerSubmit',
      'distributedProjectorCpuMsPerSubmit',
      'distributedApiCpuMsPerSubmit',
    ]);
  }
  if (curves.includes('ready-distributed')) {
    yield* curve(
      'scale/ready-distributed',
      await distributedReadyCurve(sizesOr(sizes, [100_000, 300_000, 1_000_000]), progress),
      'events',
      ['projectorCpuS', 'projectorRssMb', 'apiCpuS', 'apiRssMb', 'engineCpuS', 'engineRssMb', 'enginePeakMb', 'engineSnapshotMb'],
    );
  }
}

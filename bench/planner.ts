import {
  DomainError,
  OverlapIndex,
  decide,
  decideEngine,
  evolve,
  initialQueueState,
  plan,
  type Action,
  type DecideContext,
  type EngineCommand,
  type HostFacts,
  type QueueCommand,
  type QueueEvent,
  type QueueMode,
  type QueueState,
  type ReportedStatus,
} from '@railyard/domain';
import { positiveIntFromEnv } from './support/settings';
import { mulberry32 } from './support/mulberry32';

/**
 * `npm run bench -- planner`: the pure planner on a big queue, without I/O. A queue of
 * BENCH_PLANNER_PRS PRs (10,000), each with BENCH_PLANNER_TARGETS impacted targets (1,000) drawn from
 * BENCH_PLANNER_AREAS areas (100; 10% of the PRs span two), is driven step by step: plan, carry the
 * actions out as the engine records them, answer CI (5% of runs fail), and plan again. Every plan()
 * call is timed; p50/p99/max are over BENCH_PLANNER_STEPS calls (2,000).
 *
 *   planner-parallel   parallel mode, concurrency 100, overlaps from an OverlapIndex
 *   planner-single     the same queue in single mode, concurrency 16
 *   planner-batching   single mode, batches of 4, bisection
 *   overlap-index      building the index for the queue; adding one 500,000-target list
 */

const EPOCH = Date.UTC(2025, 0, 6);
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const progress = (line: string): void => void process.stderr.write(`[bench planner] ${line}\n`);

export interface Shape {
  prs: number;
  targetsPerPr: number;
  areas: number;
  /** Distinct target names per area. */
  namesPerArea: number;
}

/** PR n's impacted targets: `targetsPerPr` names from its area (or half from each of two). */
const targetsOf = (shape: Shape, rand: () => number): string[] => {
  const crossCutting = rand() < 0.1;
  const areas = crossCutting ? [Math.floor(rand() * shape.areas), Math.floor(rand() * shape.areas)] : [Math.floor(rand() * shape.areas)];
  const names = new Set<string>();
  while (names.size < shape.targetsPerPr) {
    const area = areas[names.size % areas.length] as number;
    names.add(`//area${area}/pkg${Math.floor(rand() * shape.namesPerArea)}:test`);
  }
  return [...names];
};

interface Bed {
  state: QueueState;
  overlaps?: OverlapIndex;
  indexMs: number;
}

const REPO = { host: 'bench.local', owner: 'acme', name: 'planner' };

/** Folds the queue's events the way the command handler would: decide, then evolve. */
export const buildQueue = (shape: Shape, mode: QueueMode, settings: Record<string, unknown>): Bed => {
  const rand = mulberry32(42);
  let state = initialQueueState();
  let ids = 0;
  const ctx = (): DecideContext => ({ now: new Date(EPOCH).toISOString(), newId: () => `entry-${++ids}` });
  const run = (c: QueueCommand): void => {
    for (const e of decide(state, c, ctx())) state = evolve(state, e);
  };
  run({ type: 'CreateQueue', queueId: 'bench', repo: REPO, branch: 'main', settings: { mode, ...settings }, requiredStatuses: ['tests'] });
  const overlaps = mode === 'parallel' ? new OverlapIndex() : undefined;
  let indexMs = 0;
  for (let n = 1; n <= shape.prs; n++) {
    const names = targetsOf(shape, rand);
    const digest = `digest-${n}`;
    if (overlaps) {
      const t0 = performance.now();
      overlaps.add(digest, names);
      indexMs += performance.now() - t0;
      run({ type: 'SetImpactedTargets', prNumber: n, headSha: `head-${n}`, targets: { digest, count: names.length, all: false } });
    }
    run({
      type: 'SubmitPullRequest',
      pr: {
        number: n,
        title: `PR ${n}`,
        author: 'bench',
        headSha: `head-${n}`,
        baseBranch: 'main',
        state: 'open',
        mergeability: 'mergeable',
      },
    });
  }
  return { state, ...(overlaps ? { overlaps } : {}), indexMs };
};

/**
 * Plays the engine's part without I/O: startRun records a start with made-up commits, merges move a
 * made-up target, CI answers the oldest run when the planner has nothing left to do.
 */
class Driver {
  private target = { sha: 'main-0', tree: 'tree-0' };
  private clock = EPOCH;
  private runs = 0;
  private readonly statuses = new Map<string, ReportedStatus[]>();
  private readonly rand = mulberry32(7);
  readonly samples: number[] = [];
  merges = 0;

  constructor(
    private state: QueueState,
    private readonly overlaps: OverlapIndex | undefined,
  ) {}

  private now(): string {
    return new Date(this.clock).toISOString();
  }

  private facts(): HostFacts {
    return {
      target: this.target,
      pulls: new Map(),
      statuses: this.statuses,
      testBranches: [],
      ...(this.overlaps ? { overlaps: this.overlaps } : {}),
    };
  }

  private record(c: EngineCommand): boolean {
    try {
      const events: QueueEvent[] = decideEngine(this.state, c, { now: this.now(), newId: () => `id-${this.runs}` });
      for (const e of events) this.state = evolve(this.state, e);
      return events.length > 0;
    } catch (err) {
      if (err instanceof DomainError) return false;
      throw err;
    }
  }

  private act(a: Action): boolean {
    switch (a.kind) {
      case 'record':
        return this.record(a.command);
      case 'startRun': {
        const id = `run-${++this.runs}`;
        return this.record({
          type: 'StartTestRun',
          testRunId: id,
          testBranch: `railyard-merge/pr-${a.prNumber}/${id}`,
          testBranchSha: `${id}-tip`,
          baseSha: a.baseSha,
          baseTree: a.baseTree,
          steps: a.stack.map((p, i) => ({ prNumber: p.number, sha: `${id}-c${i}`, tree: `${id}-t${i}` })),
          prNumbers: a.prNumbers,
          dependentPrs: a.dependentPrs,
          requiredStatuses: ['tests'],
          requiredStatusesSource: 'merge_instance',
        });
      }
      case 'merge':
      case 'completeMerge': {
        const mergeSha = `merge-${++this.merges}`;
        const onto = this.target.sha;
        const done = this.record({
          type: 'MarkMerged',
          prNumber: a.prNumber,
          mergeSha,
          ontoSha: onto,
          testRunId: a.testRunId,
          reason: 'MERGE_GRAPH_MERGE',
        });
        // A merge of a run's step lands that step's tree; in parallel mode other lanes' merges make a new one.
        if (done)
          this.target = {
            sha: mergeSha,
            tree: a.kind === 'merge' ? (this.overlaps ? `tree-${mergeSha}` : a.after.tree) : this.target.tree,
          };
        return done;
      }
      case 'directMerge':
      case 'deleteBranch':
        return false;
    }
  }

  /** CI answers the oldest run still testing. */
  private answerOne(): boolean {
    const run = [...this.state.runs.values()].find((r) => r.status === 'testing' && !this.statuses.has(r.testBranchSha));
    if (!run) return false;
    this.clock += 60_000;
    this.statuses.set(run.testBranchSha, [{ context: 'tests', state: this.rand() < 0.05 ? 'failure' : 'success' }]);
    return true;
  }

  step(): void {
    const t0 = performance.now();
    const actions = plan(this.state, this.now(), this.facts());
    this.samples.push(performance.now() - t0);
    let progressed = false;
    for (const a of actions) if (this.act(a)) progressed = true;
    if (!progressed) this.answerOne();
  }
}

const measure = (name: string, shape: Shape, mode: QueueMode, settings: Record<string, unknown>, steps: number): object => {
  progress(`${name}: building ${shape.prs} PRs`);
  const bed = buildQueue(shape, mode, settings);
  const driver = new Driver(bed.state, bed.overlaps);
  progress(`${name}: ${steps} planner steps`);
  for (let i = 0; i < steps; i++) driver.step();
  const sorted = [...driver.samples].sort((a, b) => a - b);
  return {
    name,
    prs: shape.prs,
    targetsPerPr: mode === 'parallel' ? shape.targetsPerPr : 0,
    steps: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted[sorted.length - 1] ?? NaN),
    merges: driver.merges,
    ...(mode === 'parallel' ? { indexBuildMs: round(bed.indexMs, 0) } : {}),
  };
};

const bigList = (): object => {
  const names = Array.from({ length: 500_000 }, (_, i) => `//svc${i % 997}/pkg${(i * 7919) % 10_007}:t_${i}`);
  const text = names.join('\n');
  const index = new OverlapIndex();
  index.add(
    'other',
    names.filter((_, i) => i % 1000 === 0),
  );
  const t0 = performance.now();
  index.add('big', text.split('\n'));
  const ms = performance.now() - t0;
  return { name: 'overlap-index-500k', targets: names.length, addMs: round(ms, 0), neighbours: index.neighbours('big')?.size ?? 0 };
};

export const run = async function* (args: string[]): AsyncIterable<object> {
  const shape: Shape = {
    prs: positiveIntFromEnv('BENCH_PLANNER_PRS', 10_000),
    targetsPerPr: positiveIntFromEnv('BENCH_PLANNER_TARGETS', 1_000),
    areas: positiveIntFromEnv('BENCH_PLANNER_AREAS', 100),
    namesPerArea: 20_000,
  };
  const steps = positiveIntFromEnv('BENCH_PLANNER_STEPS', 2_000);
  const only = (name: string): boolean => args.length === 0 || args.some((a) => name.includes(a));
  if (only('planner-parallel')) yield measure('planner-parallel', shape, 'parallel', { concurrency: 100, bisectionConcurrency: 10 }, steps);
  if (only('planner-single')) yield measure('planner-single', shape, 'single', { concurrency: 16 }, steps);
  if (only('planner-batching'))
    yield measure('planner-batching', shape, 'single', { concurrency: 8, batch: true, batchingMinSize: 4, bisectionConcurrency: 4 }, steps);
  if (only('overlap-index')) yield bigList();
};

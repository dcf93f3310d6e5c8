import fc from 'fast-check';
import type { QueueSettings } from '../config';
import { decide } from '../decide';
import { DomainError } from '../errors';
import { isTerminal, type QueueEvent } from '../events';
import { entryOf, evolve, initialQueueState, type QueueState } from '../state';
import type { Action } from './actions';
import type { EngineCommand } from './commands';
import { decideEngine } from './decide-engine';
import type { HostFacts, ReportedStatus } from './facts';
import { OverlapIndex } from './overlaps';
import { plan } from './plan';

/**
 * The planner against a small model of git and CI, on random queues: a run fails exactly when it
 * stacks a bad PR (no flakes), trees are the sets of PRs they hold. Whatever the settings, every PR
 * must end, no bad PR may merge, no good PR may fail, every merge must come from a passing run, and
 * in single mode the good PRs land in the order the queue took them.
 */
interface Pr {
  number: number;
  bad: boolean;
  area: number;
  urgent: boolean;
  noBatch: boolean;
}

const treeOf = (prs: Iterable<number>): string => [...new Set(prs)].sort((a, b) => a - b).join('+') || 'T';

class Model {
  state: QueueState = initialQueueState();
  private clock = Date.UTC(2025, 0, 6);
  private target = { sha: 'm0', tree: 'T', holds: [] as number[] };
  private shas = 0;
  private readonly statuses = new Map<string, ReportedStatus[]>();
  private readonly runs = new Map<string, { stack: number[]; sha: string; answerAt: number; n: number }>();
  private readonly overlaps = new OverlapIndex();
  readonly merged: number[] = [];
  readonly mergedFrom = new Map<number, string>();
  readonly passedRuns = new Set<string>();
  rounds = 0;

  constructor(
    readonly prs: Pr[],
    settings: Partial<QueueSettings>,
    /** Share of runs that fail whatever they hold, decided by the run's number. */
    private readonly flakes = 0,
  ) {
    this.api({
      type: 'CreateQueue',
      queueId: 'q',
      repo: { host: 'h', owner: 'o', name: 'n' },
      branch: 'main',
      settings,
      requiredStatuses: ['tests'],
    });
    for (const pr of prs) {
      if (settings.mode === 'parallel') {
        this.overlaps.add(`area-${pr.area}`, [`//area${pr.area}`]);
        this.api({
          type: 'SetImpactedTargets',
          prNumber: pr.number,
          headSha: `h${pr.number}`,
          targets: { digest: `area-${pr.area}`, count: 1, all: false },
        });
      }
      this.api({
        type: 'SubmitPullRequest',
        pr: {
          number: pr.number,
          title: `PR ${pr.number}`,
          author: 'a',
          headSha: `h${pr.number}`,
          baseBranch: 'main',
          state: 'open',
          mergeability: 'mergeable',
        },
        ...(pr.urgent ? { priority: 'urgent' as const } : {}),
        ...(pr.noBatch ? { noBatch: true } : {}),
      });
    }
  }

  private now(): string {
    return new Date(this.clock).toISOString();
  }

  private apply(events: QueueEvent[]): void {
    for (const e of events) {
      if (e.type === 'TestRunSucceeded') this.passedRuns.add(e.data.testRunId);
      // A re-run of a failed run (flakeRetries) tests the same commit: CI runs it as the engine's ensureCi would.
      if (e.type === 'TestRunStarted' && e.data.retry)
        this.runs.set(e.data.testRunId, {
          stack: [...e.data.dependentPrs, ...e.data.prNumbers],
          sha: e.data.testBranchSha,
          answerAt: this.clock + 60_000,
          n: ++this.shas,
        });
      this.state = evolve(this.state, e);
    }
  }

  private api(c: Parameters<typeof decide>[1]): void {
    this.apply(decide(this.state, c, { now: this.now(), newId: () => `e${++this.shas}` }));
  }

  private record(c: EngineCommand): boolean {
    try {
      const events = decideEngine(this.state, c, { now: this.now(), newId: () => `e${++this.shas}` });
      this.apply(events);
      return events.length > 0;
    } catch (err) {
      if (err instanceof DomainError) return false;
      throw err;
    }
  }

  private facts(): HostFacts {
    return {
      target: { sha: this.target.sha, tree: this.target.tree },
      pulls: new Map(),
      statuses: this.statuses,
      testBranches: [],
      overlaps: this.overlaps,
    };
  }

  private act(a: Action): boolean {
    switch (a.kind) {
      case 'record':
        return this.record(a.command);
      case 'startRun': {
        const id = `run${++this.shas}`;
        const stack = a.stack.map((p) => p.number);
        const holds = this.target.holds;
        const done = this.record({
          type: 'StartTestRun',
          testRunId: id,
          testBranch: `railyard-merge/pr-${a.prNumber}/${id}`,
          testBranchSha: `${id}-tip`,
          baseSha: a.baseSha,
          baseTree: a.baseTree,
          steps: stack.map((n, i) => ({ prNumber: n, sha: `${id}-c${i}`, tree: treeOf([...holds, ...stack.slice(0, i + 1)]) })),
          prNumbers: a.prNumbers,
          dependentPrs: a.dependentPrs,
          requiredStatuses: ['tests'],
          requiredStatusesSource: 'merge_instance',
        });
        if (done) this.runs.set(id, { stack, sha: `${id}-tip`, answerAt: this.clock + (1 + (stack.length % 3)) * 60_000, n: this.shas });
        return done;
      }
      case 'merge': {
        if (this.target.sha !== a.onto) return false;
        const holds = [...this.target.holds, a.prNumber];
        const mergeSha = `m${++this.shas}`;
        const done = this.record({
          type: 'MarkMerged',
          prNumber: a.prNumber,
          mergeSha,
          ontoSha: this.target.sha,
          testRunId: a.testRunId,
          reason: 'MERGE_GRAPH_MERGE',
        });
        if (!done) return false;
        this.target = { sha: mergeSha, tree: treeOf(holds), holds };
        this.merged.push(a.prNumber);
        this.mergedFrom.set(a.prNumber, a.testRunId);
        return true;
      }
      case 'completeMerge':
        return this.record({
          type: 'MarkMerged',
          prNumber: a.prNumber,
          mergeSha: a.mergeSha,
          ...(a.testRunId ? { testRunId: a.testRunId } : {}),
          reason: a.reason,
        });
      case 'directMerge':
      case 'deleteBranch':
        return false;
    }
  }

  /** CI answers the runs whose time has come; a run fails when it stacks a bad PR. */
  private tick(): boolean {
    const next = [...this.runs.entries()]
      .filter(([id]) => this.state.runs.get(id)?.status === 'testing')
      .sort((x, y) => x[1].answerAt - y[1].answerAt)[0];
    if (!next) return false;
    const [id, run] = next;
    this.clock = Math.max(this.clock, run.answerAt);
    const flaky = ((run.n * 2654435761) >>> 0) / 4294967296 < this.flakes;
    const bad = flaky || run.stack.some((n) => this.prs[n - 1]?.bad);
    this.statuses.set(run.sha, [{ context: 'tests', state: bad ? 'failure' : 'success', url: `ci/${id}` }]);
    this.runs.delete(id);
    return true;
  }

  run(maxRounds = 4000): void {
    while (this.rounds < maxRounds) {
      this.rounds++;
      const actions = plan(this.state, this.now(), this.facts());
      let progressed = false;
      for (const a of actions) if (this.act(a)) progressed = true;
      if (progressed) continue;
      if (!this.tick()) {
        // Batches waiting to fill start once they have waited long enough.
        if (this.prs.every((p) => isTerminal(entryOf(this.state, p.number)?.state ?? 'merged'))) return;
        this.clock += 60_000;
      }
    }
  }
}

const prsArb = fc.array(fc.record({ area: fc.integer({ min: 0, max: 2 }), urgent: fc.boolean(), noBatch: fc.boolean() }), {
  minLength: 1,
  maxLength: 10,
});
const settingsArb = fc.record({
  mode: fc.constantFrom('single' as const, 'parallel' as const),
  concurrency: fc.integer({ min: 1, max: 4 }),
  bisectionConcurrency: fc.integer({ min: 1, max: 3 }),
  batch: fc.boolean(),
  batchingMinSize: fc.integer({ min: 2, max: 4 }),
  batchingMaxWaitTimeMinutes: fc.integer({ min: 1, max: 10 }),
  optimizationMode: fc.constantFrom('off' as const, 'bisection_skip_redundant_tests' as const),
  pendingFailureDepth: fc.integer({ min: 0, max: 3 }),
  canOptimisticallyMerge: fc.boolean(),
  flakeRetries: fc.integer({ min: 0, max: 3 }),
});

type RawPr = { area: number; urgent: boolean; noBatch: boolean };

/** No flakes: about a quarter of the PRs are bad, and exactly those fail; a few are urgent (never bad, so the merge order check stays simple). */
const checkExact = (raw: RawPr[], settings: Partial<QueueSettings>, badShare: number): void => {
  const prs: Pr[] = raw.map((p, i) => {
    const urgent = p.urgent && i % 4 === 3;
    return { ...p, number: i + 1, urgent, bad: !urgent && (i * 0.37 + badShare) % 1 < 0.25 };
  });
  const m = new Model(prs, settings);
  m.run();
  for (const pr of prs) expect([pr.number, entryOf(m.state, pr.number)?.state]).toEqual([pr.number, pr.bad ? 'failed' : 'merged']);
  expect(new Set(m.merged).size).toBe(m.merged.length);
  for (const runId of m.mergedFrom.values()) expect(m.passedRuns.has(runId)).toBe(true);
  if (settings.mode === 'single' && !prs.some((p) => p.urgent)) expect(m.merged).toEqual([...m.merged].sort((a, b) => a - b));
};

/** A fifth of the runs flake: every PR still ends and no bad PR merges. */
const checkFlaky = (raw: RawPr[], settings: Partial<QueueSettings>, seed: number): void => {
  const prs: Pr[] = raw.map((p, i) => ({ ...p, number: i + 1, urgent: p.urgent && i % 4 === 3, bad: (i + seed) % 4 === 0 }));
  const m = new Model(prs, settings, 0.2);
  m.run();
  for (const pr of prs) expect(isTerminal(entryOf(m.state, pr.number)?.state ?? 'pending')).toBe(true);
  for (const pr of prs.filter((p) => p.bad)) expect(entryOf(m.state, pr.number)?.state).toBe('failed');
};

describe('the planner on random queues (model: no flakes, a run fails iff it stacks a bad PR)', () => {
  it('when any queue runs to the end, then every PR ends, exactly the bad ones fail, and merges come from passing runs', () => {
    fc.assert(fc.property(prsArb, settingsArb, fc.double({ min: 0, max: 1, noNaN: true }), checkExact), { numRuns: 400 });
  });

  it('when runs also fail at random (flakes), then every PR still ends and no bad PR merges', () => {
    fc.assert(fc.property(prsArb, settingsArb, fc.integer({ min: 0, max: 3 }), checkFlaky), { numRuns: 400 });
  });
});

/** PRs written compactly: one word per PR, its area, then `n` for noBatch and `u` for urgent. */
const prsOf = (words: string): RawPr[] =>
  words.split(' ').map((w) => ({ area: Number.parseInt(w, 10), noBatch: w.includes('n'), urgent: w.includes('u') }));

/** Batches behind an anti-flake witness (depth 1, optimistic), single mode unless `o` says otherwise: where the found cases lived. */
const heldBatchBehindWitness = (concurrency: number, o: Partial<QueueSettings> = {}): Partial<QueueSettings> => ({
  mode: 'single',
  concurrency,
  bisectionConcurrency: 1,
  batch: true,
  batchingMinSize: 2,
  batchingMaxWaitTimeMinutes: 1,
  optimizationMode: 'off',
  pendingFailureDepth: 1,
  canOptimisticallyMerge: true,
  ...o,
});

/** Queues the properties once found wrong, kept as fixed cases: what went wrong, the model, PRs, settings, bad share or seed. */
const FOUND: [string, 'exact' | 'flaky', string, Partial<QueueSettings>, number][] = [
  [
    'single mode stopped at a failed batch and dropped the ready batch gathered ahead of it (stalled)',
    'exact',
    '0 0 0 0n 0 0 0n 0 0',
    heldBatchBehindWitness(3, { batchingMinSize: 3 }),
    0,
  ],
  [
    'a failed batch was bisected while PRs stacked under it had restarted, so the skip rule convicted a good PR',
    'exact',
    '0n 0 0 0 0 0',
    {
      mode: 'single',
      concurrency: 2,
      bisectionConcurrency: 2,
      batch: true,
      batchingMinSize: 3,
      batchingMaxWaitTimeMinutes: 1,
      optimizationMode: 'bisection_skip_redundant_tests',
      pendingFailureDepth: 1,
      canOptimisticallyMerge: true,
    },
    0,
  ],
  [
    'the halves of a mixed-lane batch stood on less than the failed run, so the skip rule convicted a good PR',
    'exact',
    '0n 0 2n 2n 0 2 0 0u 0',
    {
      mode: 'parallel',
      concurrency: 3,
      bisectionConcurrency: 2,
      batch: true,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: 1,
      optimizationMode: 'bisection_skip_redundant_tests',
      pendingFailureDepth: 0,
      canOptimisticallyMerge: false,
    },
    0.89,
  ],
  [
    'a successor stacking a lone failure moved to another run and the failure asked for a witness again',
    'exact',
    '0 0n 0 0n 0 0',
    heldBatchBehindWitness(2, { bisectionConcurrency: 2, optimizationMode: 'bisection_skip_redundant_tests' }),
    0,
  ],
  [
    'a successor run proved a PR although something it depends on had come back under it (livelock)',
    'flaky',
    '2n 0 0 0n 2 2n 0 2',
    heldBatchBehindWitness(2, { mode: 'parallel' }),
    0,
  ],
  [
    'a lone failure waited for a witness that the failed batch behind it could never let start (stalled)',
    'flaky',
    '0 0n 0 0n 0n 0 0 0 0 0',
    heldBatchBehindWitness(3),
    1,
  ],
  [
    'a lone failure at depth 2 waited for a second witness while the batch behind waited for it (stalled)',
    'flaky',
    '0 0n 0n 0 0',
    heldBatchBehindWitness(2),
    0,
  ],
  [
    'a witness failed for its own PR, which then restarted ahead of a held batch (stalled)',
    'flaky',
    '0n 0 0n 0 0n 0 0',
    heldBatchBehindWitness(3),
    1,
  ],
];

describe('queues the properties found wrong once', () => {
  it.each(FOUND)('when %s, then it no longer does', (_why, kind, prs, settings, arg) => {
    (kind === 'exact' ? checkExact : checkFlaky)(prsOf(prs), settings, arg);
  });
});

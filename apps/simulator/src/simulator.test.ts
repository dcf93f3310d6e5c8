import { createHash } from 'node:crypto';
import { simulate } from './simulator';
import { smallWorkload } from './testing';
import { parseWorkload, WorkloadError } from './workload';
import { targetsRefOf } from './world';

describe('simulate', () => {
  it('when a workload runs twice with the same seed, then the results are identical', async () => {
    const w = smallWorkload({
      prs: 120,
      failureRate: 0.1,
      flakeRate: 0.05,
      ci: { durationMinutes: 30, distribution: 'lognormal', sigma: 0.4 },
      queue: { concurrency: 4 },
    });
    expect(await simulate(w)).toEqual(await simulate(w));
  });

  it('when every PR arrives at the start, then the first round lands together and is recorded before the next starts', async () => {
    const types: string[] = [];
    const w = smallWorkload({
      prs: 8,
      arrivalsPerHour: 3.6e9,
      arrivals: 'at-start',
      ci: { durationMinutes: 1 },
      queue: { concurrency: 4 },
    });
    await simulate(w, { onEvent: (e) => types.push(e.type) });
    const starts = types.flatMap((t, i) => (t === 'TestRunStarted' ? [i] : []));
    const outcomesBeforeFifth = types.slice(0, starts[4]).filter((t) => t === 'TestRunSucceeded');
    expect(outcomesBeforeFifth).toHaveLength(4);
  });

  it('when only the seed changes, then the results differ', async () => {
    const w = smallWorkload({ prs: 120, failureRate: 0.1, queue: { concurrency: 4 } });
    expect(await simulate({ ...w, seed: 2 })).not.toEqual(await simulate(w));
  });

  it('when nothing fails and the queue is saturated, then k runs merge every T', async () => {
    const r = await simulate(smallWorkload({ prs: 300, arrivalsPerHour: 30, warmupMinutes: 60, queue: { concurrency: 4 } }));
    expect(r.boundMergesPerHour).toBe(8);
    expect(r.mergesPerHour).toBeGreaterThan(7.6);
    expect(r.mergesPerHour).toBeLessThanOrEqual(8.4);
    expect(r.ciRunsPerMerge).toBeCloseTo(1, 1);
    expect(r.saturation).toBeGreaterThan(0.99);
  });

  it('when some PRs are bad and nothing flakes, then exactly the bad ones fail and every other one merges', async () => {
    const r = await simulate(smallWorkload({ prs: 200, failureRate: 0.15, queue: { concurrency: 4 } }));
    expect(r.failed).toBe(r.culpritEjections);
    expect(r.failed).toBe(Math.round(r.realizedFailureRate * 200));
    expect(r.merged + r.failed).toBe(200);
    expect(r.innocentEjections).toBe(0);
    expect(r.badMerges).toBe(0);
  });

  it('when runs flake and nothing re-runs them, then good PRs are ejected and counted as innocent', async () => {
    // At the defaults the re-runs and the runs stacked on a failed PR clear flakes (D336): none is ejected here.
    const r = await simulate(smallWorkload({ prs: 200, flakeRate: 0.2, queue: { concurrency: 2, flakeRetries: 0 } }));
    expect(r.flakes).toBeGreaterThan(0);
    expect(r.innocentEjections).toBeGreaterThan(0);
    expect(r.culpritEjections).toBe(0);
  });

  it('when anti-flake protection is on and one PR tests at a time, then a flake is cleared by the next run stacking it instead of ejecting the PR', async () => {
    const flaky = { prs: 200, arrivalsPerHour: 30, failureRate: 0.05, flakeRate: 0.1 };
    const off = await simulate(smallWorkload({ ...flaky, queue: { concurrency: 1, flakeRetries: 0 } }));
    const on = await simulate(
      smallWorkload({ ...flaky, queue: { concurrency: 1, canOptimisticallyMerge: true, pendingFailureDepth: 1, flakeRetries: 0 } }),
    );
    expect(off.innocentEjections).toBeGreaterThan(10);
    expect(on.flakes).toBeGreaterThan(10);
    expect(on.innocentEjections).toBeLessThanOrEqual(4);
    expect(on.culpritEjections).toBe(off.culpritEjections);
    expect(on.badMerges).toBe(0);
  });

  it('when flakes hit tests classified flaky and flakeRetries is 1, then the re-runs clear them and no good PR is ejected', async () => {
    const flaky = { prs: 200, arrivalsPerHour: 30, failureRate: 0.05, flakeRate: 0.1 };
    const off = await simulate(smallWorkload({ ...flaky, queue: { concurrency: 1, flakeRetries: 0 } }));
    const on = await simulate(smallWorkload({ ...flaky, testResults: { knownFlaky: 1 }, queue: { concurrency: 1, flakeRetries: 1 } }));
    expect(off.innocentEjections).toBeGreaterThan(10);
    expect(on.flakeRetriedPasses).toBeGreaterThan(10);
    // Only a flake on the re-run too (1% of flaked runs) can still eject a good PR.
    expect(on.innocentEjections).toBeLessThanOrEqual(2);
    expect(on.culpritEjections).toBe(off.culpritEjections);
    expect(on.badMerges).toBe(0);
  });

  it('when flakes hit tests classified flaky at the defaults, then the runs stacked on a flaked PR go on and it keeps its place', async () => {
    const shape = { prs: 300, arrivalsPerHour: 30, failureRate: 0.1, flakeRate: 0.1, queue: { concurrency: 4 } };
    const blind = await simulate(smallWorkload(shape));
    const r = await simulate(smallWorkload({ ...shape, testResults: { knownFlaky: 1 } }));
    // Without results a flake steps aside: the runs on it restart and it is tested again behind them.
    expect(blind.restarts.FLAKE_RETRY_PASSED ?? 0).toBeGreaterThan(5);
    expect(r.restarts.FLAKE_RETRY_PASSED ?? 0).toBe(0);
    expect(r.restarts.PREREQUISITE_MERGE_ITEM_FAILED ?? 0).toBeLessThan(blind.restarts.PREREQUISITE_MERGE_ITEM_FAILED ?? 0);
    expect(r.ciRunsPerMerge).toBeLessThan(blind.ciRunsPerMerge ?? 0);
    expect(r.badMerges).toBe(0);
  });

  it('when bad PRs fail on healthy tests, then they are ejected without a re-run', async () => {
    const r = await simulate(
      smallWorkload({
        prs: 100,
        arrivalsPerHour: 30,
        failureRate: 0.2,
        testResults: { knownFlaky: 1 },
        queue: { concurrency: 2, flakeRetries: 3 },
      }),
    );
    expect(r.culpritEjections).toBeGreaterThan(5);
    expect(r.flakeRetries).toBe(0);
    expect(r.badMerges).toBe(0);
  });

  it('when flakes hit only quarantined tests, then those runs pass and no PR waits for a re-run', async () => {
    const r = await simulate(
      smallWorkload({
        prs: 100,
        arrivalsPerHour: 30,
        flakeRate: 0.2,
        testResults: { quarantined: 1, knownFlaky: 0 },
        queue: { concurrency: 2 },
      }),
    );
    expect(r.quarantinedPasses).toBeGreaterThan(5);
    expect(r.flakeRetries).toBe(0);
    expect(r.innocentEjections).toBe(0);
    expect(r.merged).toBe(100);
  });

  it('when tests can miss a breakage, then bad PRs merge and are counted', async () => {
    const r = await simulate(smallWorkload({ prs: 200, failureRate: 0.3, missRate: 0.5, queue: { concurrency: 2 } }));
    expect(r.badMerges).toBeGreaterThan(0);
  });

  it('when PRs conflict, then they fail at build time without a CI run and none of them merges', async () => {
    const r = await simulate(
      smallWorkload({ prs: 150, conflicts: { withBase: 0.1, withEarlier: 0.1, window: 4 }, queue: { concurrency: 4 } }),
    );
    expect(r.conflictEjections).toBeGreaterThan(0);
    expect(r.merged + r.conflictEjections).toBe(150);
  });

  it('when PRs carry priorities, then the queue still keeps order within each level', async () => {
    const r = await simulate(
      smallWorkload({
        prs: 150,
        arrivalsPerHour: 120,
        priorities: { urgent: 0.05, high: 0.2, low: 0.2 },
        failureRate: 0.1,
        queue: { concurrency: 4 },
      }),
    );
    expect(r.unfinished).toBe(0);
  });

  it('when the queue is in parallel mode, then every PR uploads its targets first and is admitted', async () => {
    const r = await simulate(
      smallWorkload({ prs: 100, failureRate: 0.1, areas: { count: 4, crossCutting: 0.1 }, queue: { mode: 'parallel', concurrency: 8 } }),
    );
    expect(r.mode).toBe('parallel');
    expect(r.merged + r.failed).toBe(100);
    expect(r.laneBoundMergesPerHour).toBeGreaterThan(r.boundMergesPerHour);
  });

  it('when arrivals outpace the queue, then the backlog is held at maxWaiting', async () => {
    const r = await simulate(smallWorkload({ prs: 200, arrivalsPerHour: 600, maxWaiting: 10, queue: { concurrency: 2 } }));
    expect(r.meanWaiting).toBeLessThanOrEqual(10);
    expect(r.meanWaiting).toBeGreaterThan(8);
  });

  it('when the time limit comes first, then the PRs left are reported unfinished', async () => {
    const r = await simulate(smallWorkload({ prs: 100, maxHours: 5 }));
    expect(r.unfinished).toBeGreaterThan(0);
    expect(r.merged + r.unfinished).toBe(r.prs);
  });

  it('when direct merge is always on and the queue is often empty, then PRs whose own checks passed land without a run, and no bad PR merges', async () => {
    const low = { prs: 120, arrivalsPerHour: 1, failureRate: 0.1 };
    const off = await simulate(smallWorkload({ ...low, queue: { concurrency: 2, flakeRetries: 0 } }));
    const on = await simulate(smallWorkload({ ...low, queue: { concurrency: 2, directMergeMode: 'always', flakeRetries: 0 } }));
    expect(off.ciRunsPerMerge).toBeGreaterThanOrEqual(1);
    expect(on.ciRunsPerMerge).toBeLessThan(0.5);
    expect(on.merged + on.failed).toBe(120);
    expect(on.failed).toBe(off.failed);
    expect(on.badMerges).toBe(0);
  });

  it('when batching is on, then the result carries the group-testing reference', async () => {
    const r = await simulate(smallWorkload({ prs: 60, failureRate: 0.05, queue: { batch: true, batchingMinSize: 4 } }));
    expect(r.batchSize).toBe(4);
    expect(r.dorfmanRunsPerMerge).toBeCloseTo(0.435, 3);
  });
});

describe('parseWorkload', () => {
  it('when required fields are missing, then the error names each of them', async () => {
    const err = (() => {
      try {
        parseWorkload({ name: 'x' }, 'w.json');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(WorkloadError);
    for (const field of ['prs', 'arrivalsPerHour', 'ci', 'failureRate']) expect((err as Error).message).toContain(field);
  });

  it('when a key is unknown or a rate is out of range, then it is refused by name', async () => {
    expect(() => smallWorkload({ queue: { concurency: 4 } as never })).toThrow(/queue/);
    expect(() => smallWorkload({ failureRate: 1.5 })).toThrow(/failureRate/);
  });

  it('when a parallel workload names no areas, then it is refused', async () => {
    expect(() => smallWorkload({ queue: { mode: 'parallel' } })).toThrow(/areas/);
  });
});

describe('simulate: the engine latency bench calibrate measures', () => {
  // Eight good PRs at once, one run at a time of one minute: eight rounds.
  const burst = (engine?: { runOverheadSeconds?: number; reactSeconds?: number }) =>
    smallWorkload({
      prs: 8,
      arrivalsPerHour: 3.6e9,
      maxWaiting: 8,
      ci: { durationMinutes: 1 },
      tickMinutes: 1 / 60,
      ...(engine ? { engine } : {}),
    });

  it('when the engine costs nothing, then the PRs take their rounds of CI and no more', async () => {
    expect((await simulate(burst())).simulatedSeconds).toBeCloseTo(8 * 60, 0);
  });

  it('when each run costs overhead and each verdict a reaction, then every round is longer by both', async () => {
    const r = await simulate(burst({ runOverheadSeconds: 6, reactSeconds: 3 }));
    expect(r.merged).toBe(8);
    expect(r.simulatedSeconds).toBeCloseTo(8 * (60 + 6 + 3), 0);
  });

  it('when the bad PRs are named, then exactly those fail whatever the failure rate draws', async () => {
    const r = await simulate(smallWorkload({ prs: 12, failureRate: 0.5, badPrs: [3, 7] }));
    expect(r.failed).toBe(2);
    expect(r.merged).toBe(10);
  });
});

describe('targetsRefOf', () => {
  it('when targets repeat, then they are stored sorted and unique, addressed as the API addresses them', async () => {
    const ref = targetsRefOf(['b', 'a', 'a']);
    expect(ref).toEqual({ digest: createHash('sha256').update('a\nb').digest('hex'), count: 2, all: false });
    expect(targetsRefOf('ALL').all).toBe(true);
  });
});

import { DEFAULT_SETTINGS } from '../config';
import { FAILURE_RATE_PRIOR, batchSizeFor, foldFailureRate, runsPerPr } from './batch-size';

const settings = (over: Partial<typeof DEFAULT_SETTINGS> = {}) => ({ ...DEFAULT_SETTINGS, batch: true, ...over });

describe('batch size from the failure rate', () => {
  it("when nothing stacks behind a batch, then the cost is Dorfman's two-stage figure", () => {
    // Dorfman (1943): 1/k + 1 - (1-p)^k; at p = 5% the optimum is k = 5 at about 0.426 tests per item.
    expect(runsPerPr(5, 0.05, 0)).toBeCloseTo(0.426, 3);
    expect(batchSizeFor(settings({ batchingMinSize: 1, batchingMaxSize: 50 }), 0.05)).toBe(5);
    expect(batchSizeFor(settings({ batchingMinSize: 1, batchingMaxSize: 50 }), 0.1)).toBe(4);
    expect(batchSizeFor(settings({ batchingMinSize: 1, batchingMaxSize: 50 }), 0.01)).toBe(11);
  });

  it('when no batchingMaxSize is set, then the size is batchingMinSize whatever the failure rate', () => {
    expect(batchSizeFor(settings({ batchingMinSize: 4 }), 0.001)).toBe(4);
    expect(batchSizeFor(settings({ batchingMinSize: 4 }), 0.5)).toBe(4);
  });

  it('when batchingMaxSize is below batchingMinSize, then the minimum wins', () => {
    expect(batchSizeFor(settings({ batchingMinSize: 6, batchingMaxSize: 2 }), 0.001)).toBe(6);
  });

  it('when the failure rate is high, then the size stays at the minimum and never goes below it', () => {
    expect(batchSizeFor(settings({ batchingMinSize: 4, batchingMaxSize: 16 }), 0.4)).toBe(4);
  });

  it('when runs stack behind the batch in single mode, then a failure costs them too and the size shrinks', () => {
    const wide = settings({ batchingMinSize: 1, batchingMaxSize: 50 });
    expect(batchSizeFor({ ...wide, concurrency: 8 }, 0.02)).toBeLessThanOrEqual(batchSizeFor({ ...wide, concurrency: 1 }, 0.02));
    expect(batchSizeFor({ ...wide, concurrency: 8, mode: 'parallel' }, 0.02)).toBe(batchSizeFor({ ...wide, concurrency: 1 }, 0.02));
  });

  it("when a new queue has seen no outcome, then the prior picks Trunk's suggested batch of 4", () => {
    expect(batchSizeFor(settings({ batchingMinSize: 2, batchingMaxSize: 16 }), undefined)).toBe(4);
    expect(batchSizeFor(settings({ batchingMinSize: 2, batchingMaxSize: 16, concurrency: 4 }), undefined)).toBe(4);
  });

  it('when outcomes come in, then the estimate moves towards them from the prior and stays a probability', () => {
    expect(foldFailureRate(undefined, true)).toBeGreaterThan(FAILURE_RATE_PRIOR);
    expect(foldFailureRate(undefined, false)).toBeLessThan(FAILURE_RATE_PRIOR);
    let rate: number | undefined;
    for (let i = 0; i < 500; i++) rate = foldFailureRate(rate, i % 20 === 0);
    expect(rate).toBeGreaterThan(0.03);
    expect(rate).toBeLessThan(0.07);
    for (let i = 0; i < 5000; i++) rate = foldFailureRate(rate, true);
    expect(rate).toBeLessThanOrEqual(1);
  });
});

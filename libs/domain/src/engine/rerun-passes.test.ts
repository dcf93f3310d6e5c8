import { FLAKY_QUEUE_RERUN_PASSES, foldRerunPasses, RERUN_PASS_WEIGHT, type RerunPasses } from './rerun-passes';

const folded = (outcomes: boolean[]): RerunPasses | undefined =>
  outcomes.reduce<RerunPasses | undefined>((r, passed) => foldRerunPasses(r, passed), undefined);

describe('how often the queue’s re-runs pass (D341)', () => {
  it('when a few re-runs were seen, then the estimate is the share that passed', () => {
    expect(folded([false, true])?.rate).toBeCloseTo(0.5);
    expect(folded([true, false, false, false])?.rate).toBeCloseTo(0.25);
  });

  it('when one re-run in twenty passed, then the queue counts as flaky', () => {
    const oneIn20 = folded([true, ...Array<boolean>(19).fill(false)]);
    expect(oneIn20?.rate).toBeGreaterThanOrEqual(FLAKY_QUEUE_RERUN_PASSES);
  });

  it('when re-runs only ever failed, then the estimate stays 0', () => {
    expect(folded(Array<boolean>(5).fill(false))).toEqual({ rate: 0, count: 5 });
  });

  it('when more than fifty were seen, then one more moves it by a fiftieth, so old outcomes fade', () => {
    const long = folded(Array<boolean>(100).fill(false)) as RerunPasses;
    expect(foldRerunPasses(long, true).rate).toBeCloseTo(RERUN_PASS_WEIGHT);
  });
});

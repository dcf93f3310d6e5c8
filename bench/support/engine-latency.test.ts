import { engineLatency, type TimedEvent } from './engine-latency';

const t = (s: number): string => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const ev = (type: string, testRunId: string, s: number): TimedEvent => ({ type, data: { testRunId, at: t(s) } });

describe('engine latency from a queue stream', () => {
  it('when runs take longer than their check and start late after a verdict, then both medians say by how much', () => {
    const events = [
      ev('TestRunStarted', 'a', 0),
      ev('TestRunStarted', 'b', 0.1),
      ev('TestRunSucceeded', 'a', 3.5), // 0.5 s over a 3 s check
      ev('TestRunFailed', 'b', 3.8), // 0.7 s over
      ev('TestRunStarted', 'c', 4.1), // 0.3 s after the last verdict
      ev('TestRunCancelled', 'c', 5),
      ev('TestRunStarted', 'd', 5.5), // no verdict since 3.8: 1.7 s
      ev('TestRunSucceeded', 'd', 9.1), // 0.6 s over
    ];
    const l = engineLatency(events, 3);
    expect(l.runOverheadSeconds).toBeCloseTo(0.6, 5);
    expect(l.reactSeconds).toBeCloseTo(1.0, 5);
    expect(l.samples).toEqual({ runOverhead: 3, react: 2 });
  });

  it('when nothing ran, then the latency is zero, not NaN', () => {
    expect(engineLatency([], 3)).toEqual({ runOverheadSeconds: 0, reactSeconds: 0, samples: { runOverhead: 0, react: 0 } });
  });
});

/** The events of a queue stream the latency is read from: type and the time the engine recorded. */
export interface TimedEvent {
  type: string;
  data: { at?: string; testRunId?: string };
}

export interface EngineLatency {
  /** Median over runs that reached a verdict: start recorded → verdict recorded, minus the check's own time. */
  runOverheadSeconds: number;
  /** Median over runs started after the first wave: the last verdict before it → its start recorded. */
  reactSeconds: number;
  /** How many runs each median is over. */
  samples: { runOverhead: number; react: number };
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export const median = (xs: number[]): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

const VERDICTS = new Set(['TestRunSucceeded', 'TestRunFailed']);

/**
 * What the real engine spends around each run, read from its own event log: the two hops the
 * simulator models (workload `engine`). A run started within `firstWaveSeconds` of the first start
 * had no verdict to react to and is left out of `reactSeconds`.
 */
export const engineLatency = (events: readonly TimedEvent[], checkSeconds: number, firstWaveSeconds = 0.5): EngineLatency => {
  const startedAt = new Map<string, number>();
  const overheads: number[] = [];
  const reacts: number[] = [];
  let firstStart: number | undefined;
  let lastVerdict: number | undefined;
  for (const e of events) {
    const at = e.data.at === undefined ? NaN : Date.parse(e.data.at);
    const id = e.data.testRunId;
    if (Number.isNaN(at) || id === undefined) continue;
    if (e.type === 'TestRunStarted') {
      startedAt.set(id, at);
      firstStart ??= at;
      if (lastVerdict !== undefined && at - firstStart > firstWaveSeconds * 1000) reacts.push((at - lastVerdict) / 1000);
    } else if (VERDICTS.has(e.type)) {
      const start = startedAt.get(id);
      if (start !== undefined) overheads.push((at - start) / 1000 - checkSeconds);
      lastVerdict = at;
    }
  }
  return {
    runOverheadSeconds: Math.max(0, median(overheads)),
    reactSeconds: Math.max(0, median(reacts)),
    samples: { runOverhead: overheads.length, react: reacts.length },
  };
};

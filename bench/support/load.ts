import autocannon from 'autocannon';

/** One endpoint to load: where, with which headers, and the body of each request in send order. */
export interface LoadTarget {
  url: string;
  headers: Record<string, string>;
  nextBody: () => string;
  /** CPU seconds the server(s) behind the URL have used so far. */
  cpuSeconds: () => number;
}

export interface LoadResult {
  reqPerSec: number;
  /** Exact percentiles over every response of every round. */
  p50Ms: number;
  p99Ms: number;
  /** Server CPU per answered request: the cost of a request, which a busy machine distorts far less than throughput. */
  cpuMsPerRequest: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  ok: number;
}

interface Round {
  latencies: number[];
  seconds: number;
  cpuSeconds: number;
  errors: number;
  non2xx: number;
  ok: number;
}

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

const runRound = async (target: LoadTarget, connections: number, seconds: number): Promise<Round> => {
  const latencies: number[] = [];
  const cpuBefore = target.cpuSeconds();
  const run = autocannon({
    url: target.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    connections,
    duration: seconds,
    timeout: 30,
    requests: [{ setupRequest: (req) => ({ ...req, body: target.nextBody() }) }],
  });
  run.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
  const r = await run;
  return { latencies, seconds: r.duration, cpuSeconds: target.cpuSeconds() - cpuBefore, errors: r.errors, non2xx: r.non2xx, ok: r['2xx'] };
};

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

export const summarise = (rounds: readonly Round[]): LoadResult => {
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = rounds.reduce((sum, r) => sum + r.seconds, 0);
  const cpuSeconds = rounds.reduce((sum, r) => sum + r.cpuSeconds, 0);
  return {
    reqPerSec: seconds > 0 ? round(latencies.length / seconds) : 0,
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
    cpuMsPerRequest: latencies.length > 0 ? round((cpuSeconds * 1000) / latencies.length, 3) : 0,
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    ok: rounds.reduce((sum, r) => sum + r.ok, 0),
  };
};

export interface CompareOptions {
  baseline: LoadTarget;
  subject: LoadTarget;
  connections: number;
  /** Measured seconds per side, split over the rounds. */
  seconds: number;
  rounds: number;
  warmupSeconds: number;
  /** Runs after the warm-up, before the first measured round (e.g. to note the event log's head). */
  beforeMeasure?: () => Promise<void>;
}

/**
 * Measures the baseline and the subject in alternating short rounds rather than one after the other:
 * on a machine others share, load comes and goes, and alternating makes both sides meet the same
 * conditions, which is what a ratio needs.
 */
export const compareInterleaved = async (opts: CompareOptions): Promise<{ baseline: LoadResult; subject: LoadResult }> => {
  if (opts.warmupSeconds > 0) {
    await runRound(opts.baseline, opts.connections, opts.warmupSeconds);
    await runRound(opts.subject, opts.connections, opts.warmupSeconds);
  }
  await opts.beforeMeasure?.();
  const perRound = Math.max(1, Math.round(opts.seconds / opts.rounds));
  const baseline: Round[] = [];
  const subject: Round[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    baseline.push(await runRound(opts.baseline, opts.connections, perRound));
    subject.push(await runRound(opts.subject, opts.connections, perRound));
  }
  return { baseline: summarise(baseline), subject: summarise(subject) };
};

/** One round of load on one target, after nothing else: for cases that compare a server with itself under other conditions. */
export const measureOnce = async (target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> =>
  summarise([await runRound(target, connections, seconds)]);

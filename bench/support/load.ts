import autocannon from 'autocannon';

export interface LoadOptions {
  /** Full URL of the endpoint. */
  url: string;
  headers: Record<string, string>;
  /** Body of each request, in send order; called once per request, warm-up included. */
  nextBody: () => string;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** Runs between the warm-up and the measured run (e.g. to note the event log's head). */
  beforeMeasure?: () => Promise<void>;
}

export interface LoadResult {
  reqPerSec: number;
  p99Ms: number;
  p50Ms: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  ok: number;
}

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** A short unmeasured run first (JIT, caches, connection set-up), then the measured one. */
export const runLoad = async (opts: LoadOptions): Promise<LoadResult> => {
  const base = {
    url: opts.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...opts.headers },
    connections: opts.connections,
    timeout: 30,
    requests: [{ setupRequest: (req: object) => ({ ...req, body: opts.nextBody() }) }],
  };
  if (opts.warmupSeconds > 0) await autocannon({ ...base, duration: opts.warmupSeconds });
  await opts.beforeMeasure?.();
  const r = await autocannon({ ...base, duration: opts.seconds });
  return {
    reqPerSec: round(r.requests.average),
    p99Ms: round(r.latency.p99, 2),
    p50Ms: round(r.latency.p50, 2),
    errors: r.errors,
    non2xx: r.non2xx,
    ok: r['2xx'],
  };
};

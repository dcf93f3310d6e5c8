import type { CliContext } from '../context';
import { ApiRefusal, postJson } from '../http';
import { getPr, getQueue, positionIn, type PrStatus, type QueueTarget } from './pr-target';
import { progressLine, verdictLine, type RunCheck } from './render';

/** `--wait`'s exit codes: the verdict, or that the wait ran out first. 2 stays bad usage, as everywhere. */
export const WAIT_EXIT = { merged: 0, failed: 1, cancelled: 3, timed_out: 4 } as const;

export interface FollowOptions {
  json: boolean;
  intervalMs: number;
  timeoutMs?: number;
  /** For tests: time and waiting without a real clock. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const ACTIVE = new Set(['not_ready', 'pending', 'testing', 'tests_passed', 'pending_failure']);

const isOutage = (err: unknown): err is ApiRefusal =>
  err instanceof ApiRefusal && (err.status === 0 || err.status >= 500 || err.status === 429);

/** The checks of the PR's current run with their log links; none when the server does not name the run. */
const runChecks = async (t: QueueTarget, pr: PrStatus): Promise<RunCheck[]> => {
  const run = pr.lastTestRun;
  if (!run || !(pr.state === 'testing' || pr.state === 'pending_failure')) return [];
  try {
    const details = await postJson<{ statusChecks: { context: string; url?: string; state: string }[] }>(
      t.api,
      '/getMergeQueueTestingDetails',
      { ...t.key, testRunId: run.id },
    );
    return details.statusChecks.map((s) => ({ name: s.context, state: s.state, ...(s.url ? { url: s.url } : {}) }));
  } catch {
    // The links are a courtesy: the wait goes on without them.
    return [];
  }
};

/**
 * Polls the PR until its verdict and prints one line (or one JSON object) each time what it shows
 * changes. A server that is down or restarting is waited for, not reported as a failure: a rolling
 * deploy must not fail every CI job that is waiting on it.
 */
export const followPr = async (
  t: QueueTarget,
  prNumber: number,
  ctx: CliContext,
  opts: FollowOptions,
  first?: PrStatus,
): Promise<number> => {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = opts.timeoutMs === undefined ? Infinity : now() + opts.timeoutMs;
  const out = (line: string, record: object) => ctx.io.stdout.write(`${opts.json ? JSON.stringify(record) : line}\n`);
  let last = '';
  let outage = false;
  let pr = first;
  for (;;) {
    try {
      pr ??= await getPr(t, prNumber);
      if (outage) ctx.io.stderr.write(`railyard: ${t.api.url} answers again\n`);
      outage = false;
      if (!ACTIVE.has(pr.state)) {
        const outcome = pr.state as 'merged' | 'failed' | 'cancelled';
        out(verdictLine(pr), { type: 'verdict', outcome, exitCode: WAIT_EXIT[outcome], pr });
        return WAIT_EXIT[outcome];
      }
      const place = positionIn(await getQueue(t), prNumber);
      const checks = await runChecks(t, pr);
      const line = progressLine(pr, place, checks);
      if (line !== last) out(line, { type: 'progress', state: pr.state, ...(place ?? {}), checks, pr });
      last = line;
    } catch (err) {
      if (!isOutage(err)) throw err;
      if (!outage) ctx.io.stderr.write(`railyard: ${err.message}; still waiting\n`);
      outage = true;
    }
    pr = undefined;
    const left = deadline - now();
    if (left <= 0) {
      const message = `gave up waiting for #${prNumber} after ${Math.round((opts.timeoutMs ?? 0) / 1000)}s; it stays in the queue`;
      out(message, { type: 'verdict', outcome: 'timed_out', exitCode: WAIT_EXIT.timed_out });
      return WAIT_EXIT.timed_out;
    }
    await sleep(Math.min(opts.intervalMs, left));
  }
};

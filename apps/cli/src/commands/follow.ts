import type { CliContext } from '../context';
import { ApiRefusal, postJson } from '../http';
import { runIdFromHistory, verdictReasonFromHistory } from './from-history';
import { getPr, getQueue, positionIn, type PrStatus, type QueueTarget } from './pr-target';
import { progressLine, verdictLine, type RunCheck, type RunRef } from './render';

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

const quietly = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await work();
  } catch {
    // Explanations are a courtesy: the wait goes on without them.
    return undefined;
  }
};

/**
 * The PR's current run and its checks with their log links. The run is named by the answer's
 * lastTestRun, or else found in the queue's history (asked once per entry into testing).
 */
const runOf = async (
  t: QueueTarget,
  pr: PrStatus,
  runIds: Map<string, string | undefined>,
): Promise<{ run?: RunRef; checks: RunCheck[] }> => {
  if (!(pr.state === 'testing' || pr.state === 'pending_failure')) return { checks: [] };
  const key = `${pr.state} ${pr.stateChangedAt}`;
  if (!runIds.has(key)) runIds.set(key, pr.lastTestRun?.id ?? (await quietly(() => runIdFromHistory(t, pr))));
  const id = runIds.get(key);
  if (!id) return { checks: [] };
  const details = await quietly(() =>
    postJson<{ testBranch: string; statusChecks: { context: string; url?: string; state: string }[] }>(
      t.api,
      '/getMergeQueueTestingDetails',
      { ...t.key, testRunId: id },
    ),
  );
  return {
    run: { id, testBranch: details?.testBranch ?? pr.lastTestRun?.testBranch ?? '' },
    checks: (details?.statusChecks ?? []).map((c) => ({ name: c.context, state: c.state, ...(c.url ? { url: c.url } : {}) })),
  };
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
  const runIds = new Map<string, string | undefined>();
  let pr = first;
  for (;;) {
    try {
      pr ??= await getPr(t, prNumber);
      if (outage) ctx.io.stderr.write(`railyard: ${t.api.url} answers again\n`);
      outage = false;
      if (!ACTIVE.has(pr.state)) {
        const outcome = pr.state as 'merged' | 'failed' | 'cancelled';
        const reason =
          pr.stateReason ?? (outcome === 'merged' ? undefined : await quietly(() => verdictReasonFromHistory(t, pr as PrStatus)));
        const explained = reason ? { ...pr, stateReason: reason } : pr;
        out(verdictLine(explained), { type: 'verdict', outcome, exitCode: WAIT_EXIT[outcome], ...(reason ? { reason } : {}), pr });
        return WAIT_EXIT[outcome];
      }
      const place = positionIn(await getQueue(t), prNumber);
      const { run, checks } = await runOf(t, pr, runIds);
      const line = progressLine(pr, place, checks, run);
      if (line !== last) out(line, { type: 'progress', state: pr.state, ...(place ?? {}), ...(run ? { run } : {}), checks, pr });
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

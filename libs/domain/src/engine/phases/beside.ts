import type { Entry } from '../../state';
import type { Action } from '../actions';
import { record, retriesBeside, type Ctx, type Phase } from '../context';
import { currentRun, stackOf } from '../runs';
import { staleness } from '../staleness';

/** A PR behind `e` that depends on it runs without it: it went on while `e` stood beside the queue. */
const leftOutBehind = (c: Ctx, e: Entry): boolean => {
  const mine = c.pos.get(e.prNumber) ?? Infinity;
  const only = new Set([e.prNumber]);
  return c.chain.some((b) => {
    if ((c.pos.get(b.prNumber) ?? 0) <= mine || !c.graph.dependsOnAny(b, only)) return false;
    const run = currentRun(c.s, b);
    return run !== undefined && !stackOf(run).includes(e.prNumber);
  });
};

/**
 * A PR whose re-run beside the queue passed comes back (docs/engine.md, Flakes). It keeps its place
 * and merges from the re-run while that still predicts its merge and no run behind it left it out.
 * Otherwise it gives up its place (`FLAKE_RETRY_PASSED`) and is tested again behind the PRs in
 * flight, on what is ahead of it then: the PRs that went on without it are not restarted for a PR
 * that failed once, and the target only ever receives a tree that was tested as it lands.
 */
export const reentries: Phase = (c) => {
  if (!retriesBeside(c.s)) return [];
  const out: Action[] = [];
  for (const e of c.chain) {
    const run = currentRun(c.s, e);
    if (e.state !== 'tests_passed' || !run?.retry || run.bisection || run.prNumbers.length !== 1) continue;
    if (staleness(c, e, run) === undefined && !leftOutBehind(c, e)) continue;
    out.push(record({ type: 'RestartTests', prNumber: e.prNumber, reason: 'FLAKE_RETRY_PASSED' }));
  }
  return out;
};

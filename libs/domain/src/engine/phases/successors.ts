import type { Entry, TestRun } from '../../state';
import type { Ctx } from '../context';
import { currentRun } from '../runs';

/**
 * The first `pendingFailureDepth` runs behind a failed group that stacked one of its PRs are still
 * testing: a passing one would prove the failure a flake (anti-flake), so blame and bisection wait.
 */
export const successorsStillTesting = (c: Ctx, members: readonly Entry[]): boolean => {
  const depth = c.s.settings.pendingFailureDepth;
  if (depth === 0) return false;
  const mine = new Set(members.map((m) => m.prNumber));
  const first = Math.min(...members.map((m) => c.pos.get(m.prNumber) ?? Infinity));
  const seen = new Set<string>();
  const successors: TestRun[] = [];
  for (const b of c.chain) {
    if ((c.pos.get(b.prNumber) ?? 0) <= first || mine.has(b.prNumber)) continue;
    const r = currentRun(c.s, b);
    if (!r || seen.has(r.testRunId) || !r.dependentPrs.some((d) => mine.has(d))) continue;
    seen.add(r.testRunId);
    successors.push(r);
  }
  return successors.slice(0, depth).some((r) => r.status === 'testing');
};

import type { CliContext } from '../context';
import { postJson } from '../http';
import { priorityOption } from '../identifiers';
import { followPr } from './follow';
import { prTargetOf, type PrFlags, type PrStatus } from './pr-target';
import { progressLine } from './render';
import { followOptionsOf, type WaitFlags } from './wait-flags';

/**
 * `railyard submit`: puts a PR in its queue (again, when it already is: priority and noBatch are
 * updated in place) and, with --wait, follows it to its verdict.
 */
export const submitCommand = async (
  flags: PrFlags & WaitFlags & { priority?: string; batch?: boolean },
  ctx: CliContext,
): Promise<number> => {
  const target = prTargetOf(flags, ctx);
  const priority = priorityOption(flags.priority);
  const follow = followOptionsOf(flags);
  const pr = await postJson<PrStatus>(target.api, '/submitPullRequest', {
    ...target.key,
    pr: { number: target.pr },
    ...(priority !== undefined ? { priority } : {}),
    ...(flags.batch === false ? { noBatch: true } : {}),
  });
  if (!follow) {
    ctx.io.stdout.write(flags.json ? `${JSON.stringify(pr, null, 2)}\n` : `submitted ${progressLine(pr, undefined, [])}\n`);
    return 0;
  }
  if (!flags.json) ctx.io.stdout.write(`submitted #${target.pr} to ${flags.repo} ${target.key.targetBranch}\n`);
  return followPr(target, target.pr, ctx, follow, pr);
};

import { UsageError, type CliContext } from '../context';
import { followPr } from './follow';
import { getPr, getQueue, positionIn, prTargetOf, type PrFlags } from './pr-target';
import { statusText } from './render';
import { followOptionsOf, type WaitFlags } from './wait-flags';

/** `railyard status`: a submitted PR's state, its place in the queue and what explains it; --wait follows it. */
export const statusCommand = async (flags: PrFlags & WaitFlags, ctx: CliContext, args: string[]): Promise<number> => {
  if (args.length > 0) throw new UsageError(`unknown subcommand ${JSON.stringify(args[0])} (status set|list are the commit statuses)`);
  const target = prTargetOf(flags, ctx);
  const follow = followOptionsOf(flags);
  if (follow) return followPr(target, target.pr, ctx, follow);
  const pr = await getPr(target, target.pr);
  if (flags.json) {
    ctx.io.stdout.write(`${JSON.stringify(pr, null, 2)}\n`);
    return 0;
  }
  const place = pr.isCurrentlySubmittedToQueue ? positionIn(await getQueue(target), target.pr) : undefined;
  ctx.io.stdout.write(statusText(pr, place));
  return 0;
};

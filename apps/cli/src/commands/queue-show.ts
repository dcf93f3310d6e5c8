import type { CliContext } from '../context';
import { getQueue, queueTargetOf, type QueueFlags } from './pr-target';
import { queueTable } from './render';

/** `railyard queue show`: the queue as a table, PRs in queue order with their positions. */
export const queueShowCommand = async (flags: QueueFlags, ctx: CliContext): Promise<number> => {
  const target = queueTargetOf(flags, ctx);
  const queue = await getQueue(target);
  ctx.io.stdout.write(flags.json ? `${JSON.stringify(queue, null, 2)}\n` : queueTable(queue, `${flags.repo} ${target.key.targetBranch}`));
  return 0;
};

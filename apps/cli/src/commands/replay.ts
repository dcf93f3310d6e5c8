import { replayQueue } from '../backends/event-store';
import { CommandFailed, UsageError, type CliContext } from '../context';
import { formatRepo } from '@railyard/domain';
import { isoTime, loadHistory, sourceOf, type SourceFlags } from './history';
import type { QueueAnswer } from './pr-target';
import { queueTable } from './render';

/**
 * `railyard replay …`: the queue as it was at an instant, rebuilt from its events alone (every event
 * decided at or before --at, folded in stream order), printed as `queue show` prints the queue now, or
 * with --json as getQueue answers.
 */
export const replayCommand = async (flags: SourceFlags & { at?: string; json?: boolean }, ctx: CliContext): Promise<number> => {
  const source = sourceOf(flags, ctx);
  if (flags.at === undefined) throw new UsageError('--at is required');
  const at = isoTime('at', flags.at);
  const queue = replayQueue(await loadHistory(source, ctx.env), at);
  if (queue === null) throw new CommandFailed(`the queue did not exist at ${at} (not yet created, or deleted)`);
  ctx.io.stdout.write(
    flags.json
      ? `${JSON.stringify(queue, null, 2)}\n`
      : queueTable(queue as unknown as QueueAnswer, `${formatRepo(source.repo)} ${source.branch} at ${at}`),
  );
  return 0;
};

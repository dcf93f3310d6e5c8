import { replayQueue } from '../backends/event-store';
import { CommandFailed, UsageError, type CliContext } from '../context';
import { isoTime, loadHistory, sourceOf, type SourceFlags } from './history';

/**
 * `railyard replay …`: the queue as it was at an instant, rebuilt from its events alone (every event
 * decided at or before --at, folded in stream order), printed as getQueue answers.
 */
export const replayCommand = async (flags: SourceFlags & { at?: string }, ctx: CliContext): Promise<number> => {
  const source = sourceOf(flags, ctx);
  if (flags.at === undefined) throw new UsageError('--at is required');
  const at = isoTime('at', flags.at);
  const queue = replayQueue(await loadHistory(source, ctx.env), at);
  if (queue === null) throw new CommandFailed(`the queue did not exist at ${at} (not yet created, or deleted)`);
  ctx.io.stdout.write(`${JSON.stringify(queue, null, 2)}\n`);
  return 0;
};

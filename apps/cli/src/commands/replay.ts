import { parseArgs } from 'node:util';
import { replayQueue } from '@railyard/api';
import {
  isoTime,
  loadHistory,
  NotFoundError,
  SOURCE_OPTIONS,
  SOURCE_USAGE,
  sourceOf,
  UsageError,
  type CommandIo,
  type HistorySource,
} from './history';

const USAGE = `usage: railyard replay --repo HOST/OWNER/NAME --branch BRANCH --at ISO [--api URL [--token T]]
Rebuilds the queue as it was at that instant from its events alone (every event decided at or
before --at, folded in stream order) and prints it as getQueue answers: settings, state and the
PRs then in the queue, in queue order.
${SOURCE_USAGE}
Exit codes: 0 printed, 1 no such queue or it did not exist at that instant, 2 bad usage.`;

/** `railyard replay …`: the queue's state at a past instant. */
export const replayCommand = async (
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: CommandIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> => {
  let source: HistorySource;
  let at: string;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...SOURCE_OPTIONS, at: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    source = sourceOf(values, env);
    if (values.at === undefined) throw new UsageError('--at is required');
    at = isoTime('at', values.at);
  } catch (err) {
    if (!(err instanceof UsageError) && !(err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw err;
    io.stderr.write(`railyard replay: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    const queue = replayQueue(await loadHistory(source, env), at);
    if (queue === null) {
      io.stderr.write(`railyard replay: the queue did not exist at ${at} (not yet created, or deleted)\n`);
      return 1;
    }
    io.stdout.write(`${JSON.stringify(queue, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    io.stderr.write(`railyard replay: ${err.message}\n`);
    return 1;
  }
};

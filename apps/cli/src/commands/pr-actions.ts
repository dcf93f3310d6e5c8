import type { CliContext } from '../context';
import { postJson } from '../http';
import { prTargetOf, type PrFlags, type PrStatus } from './pr-target';
import { progressLine } from './render';

const act = async (path: string, done: string, flags: PrFlags, ctx: CliContext): Promise<number> => {
  const target = prTargetOf(flags, ctx);
  const pr = await postJson<PrStatus>(target.api, path, { ...target.key, pr: { number: target.pr } });
  ctx.io.stdout.write(flags.json ? `${JSON.stringify(pr, null, 2)}\n` : `${done} ${progressLine(pr, undefined, [])}\n`);
  return 0;
};

/** `railyard cancel`: takes the PR out of its queue; a run testing it is stopped. */
export const cancelCommand = (flags: PrFlags, ctx: CliContext): Promise<number> => act('/cancelPullRequest', 'cancelled', flags, ctx);

/** `railyard restart`: tests the PR again (testing, tests passed or pending failure). */
export const restartCommand = (flags: PrFlags, ctx: CliContext): Promise<number> =>
  act('/restartTestsOnPullRequest', 'restarted', flags, ctx);

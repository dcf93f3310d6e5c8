import { commitOnBranch, openPr } from '@railyard/testkit';
import { REPO } from './client';
import type { World } from './world';

/**
 * A local CI check that fails when a file holds FAIL, keeps a PR with slow.txt testing for a minute,
 * and one with brief.txt for two seconds (long enough for a poller to see it testing: a bare check
 * in the sandbox takes tens of milliseconds).
 */
export const SLOW_OR_FAIL_CHECK =
  'if [ -f slow.txt ]; then sleep 60; fi; if [ -f brief.txt ]; then sleep 2; fi; ! grep -rqs --exclude=.railyard.yml FAIL .';

/** PR `number` from branch pr-<number>, one commit adding `files` on top of main. */
export const openPrWithFiles = async (world: World, number: number, files: Record<string, string>): Promise<void> => {
  await commitOnBranch(world.gitRoot, REPO, { branch: `pr-${number}`, files, message: `PR ${number}` });
  await openPr(world.gitRoot, { repo: REPO, number, head: `pr-${number}` });
};

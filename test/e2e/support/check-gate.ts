import { execFileSync } from 'node:child_process';
import { gitDirOf } from '@railyard/testkit';
import type { World } from './world';

/** A place in a check's command where it waits for the test, and the test's way to let it go on. */
export interface CheckGate {
  /**
   * Shell: returns once the gate is open, or once the checkout is gone (removed under the check), so a
   * check never waits on after its tree. Put it where a check used to sleep to let the test act first.
   */
  wait: string;
  /** Opens the gate in `world`'s repository: every check there waiting at it, now or later, goes on. */
  open(world: World): void;
}

/**
 * Orders a check after something the test saw happen, however slow the machine (D301); a check that
 * slept a few seconds for the test to act could be outrun under load. The gate is a blob the test
 * writes into the repository: a check's checkout borrows that repository's objects, which the sandbox
 * mounts read-only, so `git cat-file -e` in the check sees it as soon as it is written.
 */
export const checkGate = (name: string): CheckGate => {
  const content = `railyard e2e gate: ${name}\n`;
  const sha = execFileSync('git', ['hash-object', '--stdin'], { input: content, encoding: 'utf8' }).trim();
  return {
    wait: `until git cat-file -e ${sha} 2>/dev/null || [ ! -d .git ]; do sleep 0.1; done`,
    open: (world) => {
      execFileSync('git', [`--git-dir=${gitDirOf(world.gitRoot, world.repo)}`, 'hash-object', '-w', '--stdin'], { input: content });
    },
  };
};

import { createHash } from 'node:crypto';

/**
 * Flakes drawn per (tested tree, attempt on that tree) from a seed, the same way in the simulator and
 * in `bench engine overhead`'s local CI: two engines, or the simulator and the real engine, that test
 * the same PRs draw the same flakes, whatever each did before, so a seed compares them run by run. A
 * tree is named by the PRs it holds (merged ones and the stack): PRs that apply cleanly commute.
 */

/** The tree holding these PRs, whatever order they were applied in. */
export const treeOfPrs = (prs: Iterable<number>): string => [...new Set(prs)].sort((a, b) => a - b).join(',');

/** Whether the `attempt`-th run on `tree` flakes: a uniform draw from (seed, tree, attempt) under `fraction`. */
export const flakeDrawn = (seed: number, tree: string, attempt: number, fraction: number): boolean => {
  if (fraction <= 0) return false;
  const digest = createHash('sha256').update(`${seed}:${tree}:${attempt}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < fraction;
};

/** Counts the runs started on each tree and draws each one's flake. */
export class TreeFlakes {
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly seed: number,
    private readonly fraction: number,
  ) {}

  draw(prs: Iterable<number>): boolean {
    const tree = treeOfPrs(prs);
    const attempt = (this.attempts.get(tree) ?? 0) + 1;
    this.attempts.set(tree, attempt);
    return flakeDrawn(this.seed, tree, attempt, this.fraction);
  }
}

import type { TestRunStep } from '@railyard/domain';
import type { SimPr } from './pr-model';
import { EMPTY_TREE, treeId, withPr, type TreeHash } from './tree-hash';

export type BuildResult =
  | { ok: true; sha: string; steps: TestRunStep[]; baseVersion: number }
  | { ok: false; number: number; with: number | 'base' }
  | { ok: false; unknownBase: string };

/**
 * The modelled git host: the target branch as the ordered log of PRs merged into it, and the test
 * branches that exist. Building and merging take no simulated time: they are seconds against CI's
 * minutes.
 */
export class GitModel {
  private readonly log: number[] = [];
  /** Where each merged PR sits in the log. */
  private readonly held = new Map<number, number>();
  private hash: TreeHash = EMPTY_TREE;
  /** Every head the target has had, with the log length and tree it stood at: a run may be built on any of them. */
  private readonly heads = new Map<string, { version: number; hash: TreeHash }>([['main-0', { version: 0, hash: EMPTY_TREE }]]);
  private sha = 'main-0';
  private shas = 0;
  readonly testBranches = new Map<string, string>();
  /** The PR each commit the model wrote adds, so a landing knows what it lands (a step of a test branch, a copy, a direct merge). */
  private readonly commits = new Map<string, number>();
  /** Test branches by their head commit: what CI builds and tests. */
  private readonly built = new Map<string, { stack: readonly number[]; baseVersion: number }>();

  constructor(private readonly prs: ReadonlyMap<number, SimPr>) {}

  target(): { sha: string; tree: string } {
    return { sha: this.sha, tree: treeId(this.hash) };
  }

  /** PRs on the target branch, in merge order. */
  get mergeLog(): readonly number[] {
    return this.log;
  }

  holds(prNumber: number): boolean {
    return this.held.has(prNumber);
  }

  private heldAt(prNumber: number, version: number): boolean {
    const at = this.held.get(prNumber);
    return at !== undefined && at < version;
  }

  /** Where a PR stops applying while `stack` is stacked on the head at `version`, in stack order. */
  private conflictIn(stack: readonly number[], version: number): { number: number; with: number | 'base' } | undefined {
    const below = new Set<number>();
    for (const n of stack) {
      const partner = this.prs.get(n)?.conflictsWith;
      if (partner === 'base') return { number: n, with: 'base' };
      if (partner !== undefined && (this.heldAt(partner, version) || below.has(partner))) return { number: n, with: partner };
      below.add(n);
    }
    return undefined;
  }

  /** PRs of `stack` already on the target at `baseSha`: stacking one would apply it twice. */
  alreadyOn(baseSha: string, stack: readonly number[]): number[] {
    const version = this.heads.get(baseSha)?.version ?? this.log.length;
    return stack.filter((n) => this.heldAt(n, version));
  }

  /**
   * `railyard-merge/pr-<n>/<id>`: the target's head with `stack` applied one PR after the other. A
   * PR already on the target would apply as nothing; stacking one is a planner error the caller reports.
   */
  buildTestBranch(testRunId: string, prNumber: number, baseSha: string, stack: readonly number[]): BuildResult {
    const base = this.heads.get(baseSha);
    if (!base) return { ok: false, unknownBase: baseSha };
    const conflict = this.conflictIn(stack, base.version);
    if (conflict) return { ok: false, ...conflict };
    let tree = base.hash;
    const steps = stack.map((n, i): TestRunStep => {
      tree = withPr(tree, n);
      return { prNumber: n, sha: `${testRunId}-c${i}`, tree: treeId(tree) };
    });
    const sha = steps.at(-1)?.sha ?? baseSha;
    for (const step of steps) this.commits.set(step.sha, step.prNumber);
    this.built.set(sha, { stack, baseVersion: base.version });
    this.testBranches.set(`railyard-merge/pr-${prNumber}/${testRunId}`, testRunId);
    return { ok: true, sha, steps, baseVersion: base.version };
  }

  /** The PR on the target a PR's commits no longer apply onto, if any (a replay across lanes). */
  replayConflict(prNumber: number): number | 'base' | undefined {
    const partner = this.prs.get(prNumber)?.conflictsWith;
    return partner === 'base' || (partner !== undefined && this.held.has(partner)) ? partner : undefined;
  }

  deleteBranch(branch: string): void {
    this.testBranches.delete(branch);
  }

  /** The stack and base of the test branch whose head is `sha`. */
  builtAt(sha: string): { stack: readonly number[]; baseVersion: number } | undefined {
    return this.built.get(sha);
  }

  /** A fresh commit that adds PR `prNumber` (a copy or replay of its commit, or a direct merge). */
  commitFor(prNumber: number): string {
    const sha = `main-${++this.shas}`;
    this.commits.set(sha, prNumber);
    return sha;
  }

  /** The PR a commit the model wrote adds. */
  prOf(sha: string): number | undefined {
    return this.commits.get(sha);
  }

  /** The target's length in merges: a PR created now is up to date until the next merge. */
  get version(): number {
    return this.log.length;
  }

  /** Moves the target by compare-and-swap to a commit that holds the target's tree plus the PR. */
  merge(prNumber: number, newSha: string, expectedSha: string): boolean {
    if (this.sha !== expectedSha) return false;
    if (this.held.has(prNumber)) throw new Error(`PR #${prNumber} is already on the target branch`);
    this.held.set(prNumber, this.log.length);
    this.log.push(prNumber);
    this.hash = withPr(this.hash, prNumber);
    this.sha = newSha;
    this.heads.set(newSha, { version: this.log.length, hash: this.hash });
    return true;
  }

  /** The tree a PR's head would have if merged on the target now (for a direct merge). */
  treeWith(prNumber: number): string {
    return treeId(withPr(this.hash, prNumber));
  }
}

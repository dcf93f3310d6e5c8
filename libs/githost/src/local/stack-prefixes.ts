import { createHash } from 'node:crypto';
import type { MergeMethod } from '@railyard/domain';
import { LRUCache } from 'lru-cache';

/** Where a stack stood after one of its PRs: what the next PR is merged into. */
export interface StackTip {
  sha: string;
  tree: string;
  /** Heads of the PRs the tip holds: a PR built on one of them should not apply it again. */
  heads: readonly string[];
}

/** A prefix an earlier build wrote, continued by a build on its last commit. */
export interface Continued {
  key: string;
  tip: StackTip;
}

export interface PrefixLink {
  number: number;
  headSha: string;
  title?: string;
}

/** Heads of merged PRs a continued stack carries by default (StackPrefixes.continuing). */
export const MERGED_HEADS = 64;

/** A commit of one repository and merge method: what a stack starts from, and what a prefix ends on. */
const commitKey = (repository: string, method: MergeMethod, sha: string): string => `${repository}\0${method}\0${sha}`;

/**
 * The commits earlier builds wrote for each prefix of a stack, by what determines them: the method,
 * the base, and each PR's number, head and subject, in order. The run behind another stacks the same
 * PRs on the same base plus its own, so it reuses the commits of the run ahead and merges one PR, not
 * the whole stack (issue 26: 25 ms per stacked PR on every start); its branch then holds the run ahead's
 * commits, so when that run merges, the next one's commits still fast-forward the target. Bounded
 * (least recently used out first); the commits stay in the repository while anything may reuse them.
 * The PR under test is never taken from here (test-branch.ts): a run's own commit is always new, since
 * commit statuses are keyed by commit, and a rebuilt stack must not inherit an earlier run's verdicts.
 */
export class StackPrefixes {
  private readonly tips: LRUCache<string, StackTip>;
  private readonly writing = new Map<string, Promise<StackTip | undefined>>();
  /** The prefix each written commit ends, by repository, method and commit: see `continuing`. */
  private readonly ends: LRUCache<string, Continued>;

  /**
   * `mergedHeads`: how many heads of PRs already on the target a continued stack carries (`continuing`).
   * A PR built on a recently merged PR's branch needs that PR's head to find its merge base; one built
   * on a PR merged a hundred merges ago is rare, and merges as GitHub would merge it.
   */
  constructor(
    capacity = 2_048,
    private readonly mergedHeads = MERGED_HEADS,
  ) {
    // A day at most: git prunes unreachable objects (a deleted test branch's commits) only once they
    // are two weeks old (gc.pruneExpire), so a commit named here still exists when it is reused.
    this.tips = new LRUCache({ max: capacity, ttl: 24 * 60 * 60_000 });
    this.ends = new LRUCache({ max: capacity, ttl: 24 * 60 * 60_000 });
  }

  /**
   * When `baseSha` is a commit a build wrote (a merge fast-forwards the target onto the run's own
   * commits), the prefix it ends: a build on it then continues that stack's keys and heads, so the
   * runs behind reuse the commits written before the merge instead of writing them again on the
   * new base (issue 26: every start after a merge re-merged its whole stack). Only the latest
   * `mergedHeads` heads go on: a queue that keeps merging continues one stack for as long as it runs,
   * and every head it carries is a parent of each squash stand-in and an exclusion of each rebase,
   * so all of them would make every build slower and every cached tip larger with each merge.
   */
  continuing(repository: string, method: MergeMethod, baseSha: string): Continued | undefined {
    const found = this.ends.get(commitKey(repository, method, baseSha));
    if (found === undefined || found.tip.heads.length <= this.mergedHeads) return found;
    return { key: found.key, tip: { ...found.tip, heads: found.tip.heads.slice(found.tip.heads.length - this.mergedHeads) } };
  }

  /** Remembers that `tip` ends the prefix `key`, for builds on it once the target moved there. */
  ended(repository: string, method: MergeMethod, key: string, tip: StackTip): void {
    this.ends.set(commitKey(repository, method, tip.sha), { key, tip });
  }

  /**
   * The key of the stack's first PR, then of each longer prefix: one hash each, whatever the depth.
   * `repository` scopes them: two repositories may share a base and PR numbers, not their objects.
   */
  static keys(repository: string, method: MergeMethod, baseSha: string, stack: readonly PrefixLink[], from?: Continued): string[] {
    let key = from?.key ?? commitKey(repository, method, baseSha);
    return stack.map((pr) => {
      key = createHash('sha1')
        .update(`${key}\0${pr.number}\0${pr.headSha}\0${pr.title ?? ''}`)
        .digest('hex');
      return key;
    });
  }

  get(key: string): StackTip | undefined {
    return this.tips.get(key);
  }

  set(key: string, tip: StackTip): void {
    this.tips.set(key, tip);
  }

  /**
   * The tip of `key`, waiting for a build that is writing it now. The engine builds a round's runs at
   * once, and each stacks the ones ahead: without the wait every build wrote the whole shared stack
   * again (a round of four wrote 1 + 2 + 3 + 4 PRs where 4 do). Undefined when nothing wrote it or
   * the writer stopped short of it (a conflict): the caller then writes it.
   */
  async find(key: string): Promise<StackTip | undefined> {
    return this.tips.get(key) ?? (await this.writing.get(key));
  }

  /** Marks `key` as being written; `end` (with the tip, or nothing when the write failed) wakes whoever waits in find. */
  begin(key: string): { end(tip?: StackTip): void } {
    let settle: (tip: StackTip | undefined) => void = () => undefined;
    const written = new Promise<StackTip | undefined>((resolve) => (settle = resolve));
    this.writing.set(key, written);
    return {
      end: (tip) => {
        if (tip !== undefined) this.tips.set(key, tip);
        if (this.writing.get(key) === written) this.writing.delete(key);
        settle(tip);
      },
    };
  }
}

import type { MergeReason } from '../events-engine';
import type { EngineCommand } from './commands';

export interface StackedPr {
  number: number;
  headSha: string;
  title: string;
}

/**
 * What the planner asks the engine to do. `record` only writes a command; the others act on the host
 * first and then record what happened.
 */
export type Action =
  | { kind: 'record'; command: EngineCommand }
  /**
   * Build `railyard-merge/pr-<prNumber>/<id>` with `stack` on `baseSha`, resolve required statuses,
   * record the start (`StartTestRun` with `prNumbers` as the tested PRs: the last ones of `stack`),
   * trigger CI. `prNumber` is the first tested PR and names the branch. `bisection` says the tested
   * PRs are (part of) a failed run being split; the start is recorded the same way.
   */
  | {
      kind: 'startRun';
      prNumber: number;
      prNumbers: number[];
      stack: StackedPr[];
      dependentPrs: number[];
      baseSha: string;
      baseTree: string;
      bisection?: boolean;
    }
  /**
   * Move the target, which must still be at `onto`, to the PR's own commit(s) of the run. When the
   * target's tree is `before`'s, they land as tested (fast-forward, or copied with their trees onto
   * the commits that hold `before`'s tree). In parallel mode PRs of other lanes may have merged since
   * the run started: the PR's commits are then replayed onto the target (a three-way pick against
   * their own parents).
   */
  | {
      kind: 'merge';
      prNumber: number;
      testRunId: string;
      index: number;
      before: { sha: string; tree: string };
      after: { sha: string; tree: string };
      onto: string;
    }
  /** An up-to-date PR into an empty queue, without a run. */
  | { kind: 'directMerge'; prNumber: number; headSha: string; baseSha: string }
  /** The target already holds the merge (a crash came between moving it and recording): mark the host PR, then record. */
  | { kind: 'completeMerge'; prNumber: number; mergeSha: string; testRunId?: string; reason: MergeReason }
  | { kind: 'deleteBranch'; branch: string };

export type ActionKind = Action['kind'];

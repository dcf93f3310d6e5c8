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
  /** Build `railyard-merge/pr-<n>/<id>` with `stack` on `baseSha`, resolve required statuses, record the start, trigger CI. */
  | { kind: 'startRun'; prNumber: number; stack: StackedPr[]; dependentPrs: number[]; baseSha: string; baseTree: string }
  /** Move the target from `before` to the PR's own commit(s) of the run (copied onto the target when it holds `before`'s tree under another commit). */
  | {
      kind: 'merge';
      prNumber: number;
      testRunId: string;
      index: number;
      before: { sha: string; tree: string };
      after: { sha: string; tree: string };
    }
  /** An up-to-date PR into an empty queue, without a run. */
  | { kind: 'directMerge'; prNumber: number; headSha: string; baseSha: string }
  /** The target already holds the merge (a crash came between moving it and recording): mark the host PR, then record. */
  | { kind: 'completeMerge'; prNumber: number; mergeSha: string; testRunId?: string; reason: MergeReason }
  | { kind: 'deleteBranch'; branch: string };

export type ActionKind = Action['kind'];

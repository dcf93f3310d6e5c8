import type { MergeMethod, Mergeability, RepoRef, ReportedStatus } from '@railyard/domain';
import type { CodeHost, HostPullRequest, Landing, TestBranchBuilt, TestBranchRef } from '@railyard/queue-driver';
import { CHECK } from './ci-model';
import type { GitModel } from './git-model';
import { InvariantViolation } from './invariants';
import type { SimPr } from './pr-model';

export const SIM_BRANCH = 'main';

/**
 * The modelled git host behind the engine's CodeHost port, so the simulator drives queues with the
 * engine's own QueueDriver. Only what a queue needs is modelled: the target's log of merged PRs,
 * test branches, PRs that stay open with one head, and the checks a PR's own head passed. Building
 * a run on a base the target never was, or stacking a PR the target already holds, is a planner
 * error: the simulation stops there.
 */
export class SimHost implements CodeHost {
  constructor(
    private readonly git: GitModel,
    private readonly prs: ReadonlyMap<number, SimPr>,
    private readonly minute: () => number,
  ) {}

  async pullRequest(_repo: RepoRef, number: number): Promise<HostPullRequest | null> {
    const pr = this.prs.get(number);
    return pr ? { number, title: `PR ${number}`, author: 'sim', headSha: pr.headSha, baseBranch: SIM_BRANCH, state: 'open' } : null;
  }

  async mergeability(): Promise<Mergeability> {
    return 'mergeable';
  }

  async branchHead(): Promise<{ sha: string; tree: string }> {
    return this.git.target();
  }

  async treeOf(_repo: RepoRef, sha: string): Promise<string> {
    const target = this.git.target();
    if (sha === target.sha) return target.tree;
    throw new Error(`the simulated host keeps no tree for ${sha}`);
  }

  async isAncestor(): Promise<boolean> {
    throw new Error('the simulated host answers up-to-date PRs through its facts, not isAncestor');
  }

  /** A PR head's own checks (direct merge): they ran before the PR was submitted. */
  async statuses(_repo: RepoRef, sha: string): Promise<ReportedStatus[]> {
    const pr = [...this.prs.values()].find((p) => p.headSha === sha);
    return pr?.headChecks ? [{ context: CHECK, state: pr.headChecks }] : [];
  }

  async buildTestBranch(
    _repo: RepoRef,
    r: { baseSha: string; stack: readonly { number: number }[]; method: MergeMethod; testRunId: string; prNumber: number },
  ): Promise<TestBranchBuilt> {
    const stack = r.stack.map((p) => p.number);
    const onTarget = this.git.alreadyOn(r.baseSha, stack);
    if (onTarget.length > 0)
      throw new InvariantViolation(
        'STACKED_MERGED_PR',
        `run for PR #${r.prNumber} stacks PR(s) ${onTarget.join(', ')} already on its base`,
        this.minute(),
      );
    const built = this.git.buildTestBranch(r.testRunId, r.prNumber, r.baseSha, stack);
    if (!built.ok && 'unknownBase' in built)
      throw new InvariantViolation(
        'UNKNOWN_BASE',
        `run for PR #${r.prNumber} is to be built on ${built.unknownBase}, which the target branch never was`,
        this.minute(),
      );
    if (!built.ok) return { ok: false, conflict: { number: built.number, with: built.with, paths: [] } };
    return {
      ok: true,
      branch: `railyard-merge/pr-${r.prNumber}/${r.testRunId}`,
      sha: built.sha,
      tree: built.steps.at(-1)?.tree ?? '',
      steps: built.steps.map((st) => ({ number: st.prNumber, sha: st.sha, tree: st.tree })),
    };
  }

  async listTestBranches(): Promise<TestBranchRef[]> {
    return [...this.git.testBranches].map(([branch, testRunId]) => ({ branch, testRunId }));
  }

  async deleteBranch(_repo: RepoRef, branch: string): Promise<void> {
    this.git.deleteBranch(branch);
  }

  /** A copy adds the PR to the target as it was tested; a replay across lanes fails where git would find a conflict. */
  async carryOnto(
    _repo: RepoRef,
    r: { mode: 'copy' | 'replay'; to: string },
  ): Promise<{ ok: true; sha: string } | { ok: false; paths: string[] }> {
    const prNumber = this.git.prOf(r.to);
    if (prNumber === undefined) throw new Error(`the simulated host never wrote ${r.to}`);
    if (r.mode === 'replay') {
      const conflict = this.git.replayConflict(prNumber);
      if (conflict !== undefined)
        return { ok: false, paths: [conflict === 'base' ? '(conflicts with the base)' : `(conflicts with PR #${conflict})`] };
    }
    return { ok: true, sha: this.git.commitFor(prNumber) };
  }

  async directMergeCommit(_repo: RepoRef, r: { prNumber: number }): Promise<string> {
    return this.git.commitFor(r.prNumber);
  }

  /** Only a commit a test run built (or a copy, replay or direct merge of one) can land: anything else is untested. */
  async land(_repo: RepoRef, r: { sha: string; expected: string }): Promise<Landing> {
    const prNumber = this.git.prOf(r.sha);
    if (prNumber === undefined)
      throw new InvariantViolation('MERGED_UNTESTED', `the engine lands ${r.sha}, which no test run built`, this.minute());
    return this.git.merge(prNumber, r.sha, r.expected) ? { landed: true } : { landed: false, actual: this.git.target().sha };
  }

  async markMerged(): Promise<void> {}

  watch(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {}
}

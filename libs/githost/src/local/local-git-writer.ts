import type { RepoRef } from '@railyard/domain';
import { deleteBranch, moveBranch } from './branches';
import type { Identity } from './commits';
import { RefReader } from './refs';
import { existingRepoDir } from './repos';
import { StackPrefixes } from './stack-prefixes';
import { buildTestBranch, type BuildTestBranchInput, type BuildTestBranchResult } from './test-branch';

export interface LocalGitWriterOptions {
  root: string;
  /** Committer of every commit Railyard writes. */
  committer?: Identity;
  /** The clock for commit dates; injected so tests can build identical commits. */
  now?: () => Date;
}

export const DEFAULT_COMMITTER: Identity = { name: 'Railyard', email: 'railyard@localhost' };

/** git's internal date format in UTC, which commit-tree takes through GIT_*_DATE. */
const gitDate = (d: Date): string => `${Math.floor(d.getTime() / 1000)} +0000`;

/** The merge engine's write side on the local host: test branches and compare-and-swap branch moves. */
export class LocalGitWriter {
  readonly root: string;
  private readonly committer: Identity;
  private readonly now: () => Date;
  private readonly refs = new RefReader(64);
  /** The run behind reuses the commits of the stack the run ahead built (stack-prefixes.ts). */
  private readonly prefixes = new StackPrefixes();

  constructor(opts: LocalGitWriterOptions) {
    this.root = opts.root;
    this.committer = opts.committer ?? DEFAULT_COMMITTER;
    this.now = opts.now ?? (() => new Date());
  }

  async buildTestBranch(repo: RepoRef, input: BuildTestBranchInput): Promise<BuildTestBranchResult> {
    const gitDir = await existingRepoDir(this.root, repo);
    return buildTestBranch({ gitDir, committer: this.committer, date: gitDate(this.now()), prefixes: this.prefixes }, input);
  }

  async moveBranch(repo: RepoRef, branch: string, newSha: string, expectedOldSha: string | null): Promise<void> {
    return moveBranch(await existingRepoDir(this.root, repo), this.refs, branch, newSha, expectedOldSha);
  }

  async deleteBranch(repo: RepoRef, branch: string, expectedOldSha?: string): Promise<boolean> {
    return deleteBranch(await existingRepoDir(this.root, repo), this.refs, branch, expectedOldSha);
  }
}

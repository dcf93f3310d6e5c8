import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { GitHostError } from '../errors';
import { runGit } from './git-helper';
import { formatRepo, isValidBranchName, isValidPrNumber } from './names';
import {
  PULL_FILE_VERSION,
  PullFileLock,
  pullHeadOf,
  pullHeadRefOf,
  readPullFile,
  type PullFile,
  type StoredMergeability,
} from './pull-file';
import { RefReader } from './refs';
import { existingRepoDir, repoDirOrThrow } from './repos';
import { mergeTree } from './merge-tree';
import { commitSummary, resolveCommit } from './revisions';

export interface OpenPullRequestInput {
  repo: RepoRef;
  number: number;
  /** A branch of the repository or a commit id. */
  head: string;
  base: string;
  /** Defaults to the head commit's subject. */
  title?: string;
  /** Defaults to the head commit's author name. */
  author?: string;
}

export interface UpdatePullRequestInput {
  repo: RepoRef;
  number: number;
  head?: string;
  base?: string;
  title?: string;
}

export interface PullRequestTarget {
  repo: RepoRef;
  number: number;
}

/** The PR file plus where its head ref points. */
export type PullRequestRecord = PullFile & { headSha: string };

/**
 * Creates and changes the local host's repositories and PRs: what a forge's web UI would do.
 * Used by the `railyard pr` commands, by tests and by demos; the queue itself only reads.
 */
export class LocalGitAdmin {
  readonly root: string;
  private readonly now: () => Date;
  private readonly refs = new RefReader(16);

  constructor(opts: { root: string; now?: () => Date }) {
    this.root = opts.root;
    this.now = opts.now ?? (() => new Date());
  }

  /** A bare repository with default branch main; doing it again leaves an existing one as it is. */
  async initRepository(repo: RepoRef): Promise<string> {
    const gitDir = repoDirOrThrow(this.root, repo);
    await fs.mkdir(path.dirname(gitDir), { recursive: true });
    await runGit(null, ['init', '--quiet', '--bare', '--initial-branch=main', gitDir]);
    return gitDir;
  }

  async openPullRequest(input: OpenPullRequestInput): Promise<PullRequestRecord> {
    const gitDir = await existingRepoDir(this.root, input.repo);
    checkNumber(input.number);
    const headSha = await resolveCommit(gitDir, this.refs, input.head);
    const headBranch = await this.branchNamed(gitDir, input.head, headSha);
    await this.checkBase(gitDir, input.base);
    const defaults = input.title === undefined || input.author === undefined ? await commitSummary(gitDir, headSha) : undefined;
    return this.withLock(gitDir, input.number, async (current) => {
      if (current?.state === 'open')
        throw new GitHostError('PR_ALREADY_OPEN', `PR #${input.number} is already open in ${formatRepo(input.repo)}`);
      if (current?.state === 'merged')
        throw new GitHostError('PR_MERGED', `PR #${input.number} in ${formatRepo(input.repo)} is merged; use another number`);
      const now = this.now().toISOString();
      await setRef(gitDir, pullHeadRefOf(input.number), headSha);
      // Opening a closed number reopens it: its other fields and creation time stay.
      const pull: PullFile = {
        ...current,
        version: PULL_FILE_VERSION,
        number: input.number,
        title: input.title ?? defaults?.subject ?? '',
        author: input.author ?? defaults?.authorName ?? '',
        baseBranch: input.base,
        ...(headBranch ? { headBranch } : {}),
        state: 'open',
        createdAt: current?.createdAt ?? now,
        updatedAt: now,
        ...(await this.mergeabilityOf(gitDir, input.base, headSha)),
      };
      return { pull, headSha };
    });
  }

  /** Moves the head and/or retargets the base and/or retitles an open PR. */
  async updatePullRequest(input: UpdatePullRequestInput): Promise<PullRequestRecord> {
    const gitDir = await existingRepoDir(this.root, input.repo);
    checkNumber(input.number);
    const newHead = input.head === undefined ? undefined : await resolveCommit(gitDir, this.refs, input.head);
    const headBranch = input.head === undefined || newHead === undefined ? undefined : await this.branchNamed(gitDir, input.head, newHead);
    if (input.base !== undefined) await this.checkBase(gitDir, input.base);
    return this.withLock(gitDir, input.number, async (current) => {
      const { headBranch: previousBranch, ...pull } = requireState(current, input, 'open');
      if (newHead !== undefined) await setRef(gitDir, pullHeadRefOf(input.number), newHead);
      const headSha = newHead ?? (await this.headOf(gitDir, input.number, current));
      // A head moved to a commit id comes from no branch any more; one not moved keeps its branch.
      const branch = newHead === undefined ? previousBranch : headBranch;
      const updated: PullFile = {
        ...pull,
        ...(branch ? { headBranch: branch } : {}),
        ...(input.title !== undefined && { title: input.title }),
        ...(input.base !== undefined && { baseBranch: input.base }),
        updatedAt: this.now().toISOString(),
        ...(await this.mergeabilityOf(gitDir, input.base ?? pull.baseBranch, headSha)),
      };
      return { pull: updated, headSha };
    });
  }

  /** `rev` when it names a branch whose head is `sha` (the PR comes from that branch), else undefined. */
  private async branchNamed(gitDir: string, rev: string, sha: string): Promise<string | undefined> {
    return isValidBranchName(rev) && (await this.refs.read(gitDir, `refs/heads/${rev}`)) === sha ? rev : undefined;
  }

  async closePullRequest(target: PullRequestTarget): Promise<PullRequestRecord> {
    return this.setState(target, 'closed');
  }

  /** What the merge engine records once the target branch holds the PR's changes. */
  async markPullRequestMerged(target: PullRequestTarget): Promise<PullRequestRecord> {
    return this.setState(target, 'merged');
  }

  private async setState(target: PullRequestTarget, state: 'closed' | 'merged'): Promise<PullRequestRecord> {
    const gitDir = await existingRepoDir(this.root, target.repo);
    checkNumber(target.number);
    return this.withLock(gitDir, target.number, async (current) => {
      const pull = requireState(current, target, 'open');
      // Closed or merged, the PR stops following its branch: its head ref keeps the head it had. Left
      // alone when it holds that head already (the usual case): each merge waited for that update-ref,
      // one more process between a verdict and the next check (issue 26).
      const headSha = await this.headOf(gitDir, target.number, pull);
      const ref = pullHeadRefOf(target.number);
      if ((await this.refs.read(gitDir, ref)) !== headSha) await setRef(gitDir, ref, headSha);
      return { pull: { ...pull, state, updatedAt: this.now().toISOString() }, headSha };
    });
  }

  private async withLock(
    gitDir: string,
    number: number,
    change: (current: PullFile | null) => Promise<{ pull: PullFile; headSha: string }>,
  ): Promise<PullRequestRecord> {
    const lock = await PullFileLock.acquire(gitDir, number);
    try {
      const { pull, headSha } = await change(await readPullFile(gitDir, number));
      await lock.commit(pull);
      return { ...pull, headSha };
    } finally {
      await lock.release();
    }
  }

  /**
   * What a forge works out after a push: whether the head merges into the base's head now. Stored in
   * the PR file, it lets a submission take the answer without running git; it stops counting once
   * either side moves (LocalGitHost compares the commits).
   */
  private async mergeabilityOf(gitDir: string, base: string, headSha: string): Promise<{ mergeability: StoredMergeability } | object> {
    const baseSha = await this.refs.read(gitDir, `refs/heads/${base}`);
    if (baseSha === null) return {};
    const merged = await mergeTree(gitDir, baseSha, headSha);
    return { mergeability: { baseSha, headSha, value: merged.clean ? 'mergeable' : 'not_mergeable' } };
  }

  /** The PR's head now: its branch's head while it is open and came from a branch (pull-file.ts, pullHeadOf). */
  private async headOf(gitDir: string, number: number, pull: Pick<PullFile, 'state' | 'headBranch'> | null): Promise<string> {
    const sha = await pullHeadOf(this.refs, gitDir, number, pull);
    if (sha === null) throw new GitHostError('PR_NOT_FOUND', `PR #${number} has no head ref ${pullHeadRefOf(number)}`);
    return sha;
  }

  private async checkBase(gitDir: string, base: string): Promise<void> {
    if (!isValidBranchName(base)) throw new GitHostError('INVALID_INPUT', `not a valid branch name: ${JSON.stringify(base)}`);
    if ((await this.refs.read(gitDir, `refs/heads/${base}`)) === null) {
      throw new GitHostError('BRANCH_NOT_FOUND', `base branch ${JSON.stringify(base)} does not exist`);
    }
  }
}

const checkNumber = (n: number): void => {
  if (!isValidPrNumber(n)) throw new GitHostError('INVALID_INPUT', `a PR number is a positive integer, got ${String(n)}`);
};

const requireState = (current: PullFile | null, target: PullRequestTarget, state: 'open'): PullFile => {
  if (current === null) throw new GitHostError('PR_NOT_FOUND', `no PR #${target.number} in ${formatRepo(target.repo)}`);
  if (current.state !== state) {
    throw new GitHostError(
      current.state === 'merged' ? 'PR_MERGED' : 'PR_CLOSED',
      `PR #${target.number} in ${formatRepo(target.repo)} is ${current.state}`,
    );
  }
  return current;
};

const setRef = async (gitDir: string, ref: string, sha: string): Promise<void> => {
  await runGit(gitDir, ['update-ref', '-m', 'railyard: pull request head', ref, sha]);
};

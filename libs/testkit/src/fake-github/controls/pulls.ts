import { addComment, deleteComment, editComment } from '../comment-actions';
import type { FakeCore } from '../core';
import { compareAndSwapRef, readRef } from '../git';
import { emitPullEvent, markMerged } from '../lifecycle';
import type { FakeLabel, FakePull, IssueComment } from '../model';
import { repoNamed } from './repos';

/** Test controls for pull requests and their conversation: what people do in GitHub's web UI. */

export interface OpenPullInput {
  /** The base repository, `owner/name`. */
  repo: string;
  /** The head branch; in `headRepo` when the PR comes from a fork. */
  head: string;
  /** A fork of `repo`, `owner/name`, holding the head branch. */
  headRepo?: string;
  base?: string;
  title?: string;
  body?: string | null;
  draft?: boolean;
  /** Who opens it; default the head repository's owner. */
  user?: string;
}

export const pullNamed = (core: FakeCore, fullName: string, number: number): FakePull => {
  const pr = core.state.pull(repoNamed(core, fullName).id, number);
  if (!pr) throw new Error(`no pull request ${fullName}#${number}`);
  return pr;
};

export const openPull = async (core: FakeCore, input: OpenPullInput): Promise<FakePull> => {
  const base = repoNamed(core, input.repo);
  const headRepo = input.headRepo === undefined ? base : repoNamed(core, input.headRepo);
  const headSha = headRepo.knownBranches.get(input.head);
  if (headSha === undefined) throw new Error(`no branch ${input.head} in ${headRepo.owner.login}/${headRepo.name}`);
  const baseRef = input.base ?? base.defaultBranch;
  if (!base.knownBranches.has(baseRef)) throw new Error(`no base branch ${baseRef}`);
  const user = core.state.user(input.user ?? headRepo.owner.login);
  return core.withRepoLock(base.id, async () => {
    const number = core.state.nextIssueNumber(base.id);
    // Every pull request gets refs/pull/N/head in the base repository, which is how a fork's head is read there.
    await compareAndSwapRef(base.gitDir, `refs/pull/${number}/head`, headSha, null);
    const now = core.state.iso();
    const pr: FakePull = {
      id: core.state.nextId(),
      number,
      repoId: base.id,
      headRepoId: headRepo.id,
      headRef: input.head,
      headSha,
      baseRef,
      title: input.title ?? input.head,
      body: input.body ?? null,
      user,
      state: 'open',
      draft: input.draft ?? false,
      labels: [],
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      merged: false,
      mergedAt: null,
      mergedBy: null,
      mergeCommitSha: null,
      mergeability: null,
      mergePending: null,
      countedFrom: null,
    };
    core.state.pullsOf(base.id).push(pr);
    await emitPullEvent(core, pr, 'opened', user);
    return pr;
  });
};

export const closePull = async (core: FakeCore, fullName: string, number: number, user?: string): Promise<void> => {
  const pr = pullNamed(core, fullName, number);
  if (pr.state === 'closed') return;
  const now = core.state.iso();
  Object.assign(pr, { state: 'closed', closedAt: now, updatedAt: now, mergePending: null });
  await emitPullEvent(core, pr, 'closed', core.state.user(user ?? pr.user.login));
};

export const reopenPull = async (core: FakeCore, fullName: string, number: number, user?: string): Promise<void> => {
  const pr = pullNamed(core, fullName, number);
  if (pr.state === 'open' || pr.merged) return;
  const head = core.state.repo(pr.headRepoId).knownBranches.get(pr.headRef);
  const base = core.state.repo(pr.repoId);
  if (head !== undefined && head !== pr.headSha) {
    const ref = `refs/pull/${pr.number}/head`;
    await compareAndSwapRef(base.gitDir, ref, head, await readRef(base.gitDir, ref));
    pr.headSha = head;
  }
  Object.assign(pr, { state: 'open', closedAt: null, updatedAt: core.state.iso(), mergeability: null });
  await emitPullEvent(core, pr, 'reopened', core.state.user(user ?? pr.user.login));
};

export const editPull = async (
  core: FakeCore,
  fullName: string,
  number: number,
  changes: { title?: string; body?: string | null; base?: string },
  user?: string,
): Promise<void> => {
  const pr = pullNamed(core, fullName, number);
  const recorded: Record<string, { from: string }> = {};
  if (changes.title !== undefined) {
    recorded.title = { from: pr.title };
    pr.title = changes.title;
  }
  if (changes.body !== undefined) {
    recorded.body = { from: pr.body ?? '' };
    pr.body = changes.body;
  }
  if (changes.base !== undefined) {
    recorded.base = { from: pr.baseRef };
    pr.baseRef = changes.base;
    pr.mergeability = null;
  }
  pr.updatedAt = core.state.iso();
  await emitPullEvent(core, pr, 'edited', core.state.user(user ?? pr.user.login), { changes: recorded });
};

export const setDraft = async (core: FakeCore, fullName: string, number: number, draft: boolean, user?: string): Promise<void> => {
  const pr = pullNamed(core, fullName, number);
  if (pr.draft === draft) return;
  pr.draft = draft;
  pr.updatedAt = core.state.iso();
  await emitPullEvent(core, pr, draft ? 'converted_to_draft' : 'ready_for_review', core.state.user(user ?? pr.user.login));
};

export const setLabel = async (
  core: FakeCore,
  fullName: string,
  number: number,
  name: string,
  present: boolean,
  user?: string,
): Promise<void> => {
  const pr = pullNamed(core, fullName, number);
  const existing = pr.labels.find((l) => l.name === name);
  if (present === (existing !== undefined)) return;
  const label: FakeLabel = existing ?? { id: core.state.nextId(), name, color: 'ededed' };
  pr.labels = present ? [...pr.labels, label] : pr.labels.filter((l) => l !== label);
  await emitPullEvent(core, pr, present ? 'labeled' : 'unlabeled', core.state.user(user ?? pr.user.login), { label });
};

/** Flags now a PR that GitHub would flag merged later (the delayed merged flag, cut short). */
export const flagMergedNow = (core: FakeCore, fullName: string, number: number): Promise<void> =>
  markMerged(core, pullNamed(core, fullName, number));

export const comment = (core: FakeCore, fullName: string, number: number, user: string, body: string): IssueComment => {
  const pr = pullNamed(core, fullName, number);
  return addComment(core, core.state.repo(pr.repoId), number, core.state.user(user), body, null);
};

const commentNamed = (core: FakeCore, id: number): IssueComment => {
  const found = core.state.comments.get(id);
  if (!found) throw new Error(`no comment ${id}`);
  return found;
};

export const changeComment = (core: FakeCore, id: number, body: string, user?: string): IssueComment => {
  const found = commentNamed(core, id);
  return editComment(core, found, body, user === undefined ? found.user : core.state.user(user));
};

export const removeComment = (core: FakeCore, id: number, user?: string): void => {
  const found = commentNamed(core, id);
  deleteComment(core, found, user === undefined ? found.user : core.state.user(user));
};

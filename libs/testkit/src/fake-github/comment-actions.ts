import type { FakeCore } from './core';
import type { FakeRepo, FakeUser, IssueComment } from './model';
import { issueCommentPayload } from './payloads';

/** Comments on pull requests, shared by the REST routes and the test controls (a person commenting). */

export const commentCount = (core: FakeCore, repoId: number, number: number): number =>
  [...core.state.comments.values()].filter((c) => c.repoId === repoId && c.issueNumber === number).length;

const emitComment = (
  core: FakeCore,
  comment: IssueComment,
  action: 'created' | 'edited' | 'deleted',
  sender: FakeUser,
  previous?: string,
) => {
  const repo = core.state.repo(comment.repoId);
  const pr = core.state.pull(repo.id, comment.issueNumber);
  if (!pr) return;
  const count = commentCount(core, repo.id, pr.number);
  core.emitFor(repo, 'issue_comment', action, (inst) => issueCommentPayload(action, comment, pr, count, inst, sender, core.view, previous));
};

export const addComment = (
  core: FakeCore,
  repo: FakeRepo,
  number: number,
  user: FakeUser,
  body: string,
  viaAppId: number | null,
): IssueComment => {
  const now = core.state.iso();
  const comment: IssueComment = {
    id: core.state.nextId(),
    repoId: repo.id,
    issueNumber: number,
    user,
    body,
    createdAt: now,
    updatedAt: now,
    viaAppId,
    reactions: [],
  };
  core.state.comments.set(comment.id, comment);
  emitComment(core, comment, 'created', user);
  return comment;
};

export const editComment = (core: FakeCore, comment: IssueComment, body: string, sender: FakeUser): IssueComment => {
  const previous = comment.body;
  comment.body = body;
  comment.updatedAt = core.state.iso();
  emitComment(core, comment, 'edited', sender, previous);
  return comment;
};

export const deleteComment = (core: FakeCore, comment: IssueComment, sender: FakeUser): void => {
  core.state.comments.delete(comment.id);
  emitComment(core, comment, 'deleted', sender);
};

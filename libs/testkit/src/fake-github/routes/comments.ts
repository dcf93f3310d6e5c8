import { addComment, editComment } from '../comment-actions';
import { notFound } from '../errors';
import type { IssueComment, ReactionContent } from '../model';
import { issueComment, reaction } from '../representations/comments';
import { ok, paginate, repoOf, type Handlers, type RouteContext } from './types';

/** Issue comments on pull requests and reactions to them. */

const commentOf = (ctx: RouteContext): IssueComment => {
  const comment = ctx.core.state.comments.get(Number(ctx.params.comment_id));
  if (!comment || comment.repoId !== repoOf(ctx).id) throw notFound();
  return comment;
};

export const commentHandlers: Handlers = {
  'issues/create-comment': async (ctx) => {
    const repo = repoOf(ctx);
    const number = Number(ctx.params.issue_number);
    if (!ctx.core.state.pull(repo.id, number)) throw notFound();
    const comment = addComment(ctx.core, repo, number, ctx.actor, (ctx.body as { body: string }).body, ctx.caller.app.id);
    return ok(issueComment(comment, ctx.core.view), 201);
  },

  'issues/list-comments': async (ctx) => {
    const repo = repoOf(ctx);
    const number = Number(ctx.params.issue_number);
    if (!ctx.core.state.pull(repo.id, number)) throw notFound();
    const comments = [...ctx.core.state.comments.values()]
      .filter((c) => c.repoId === repo.id && c.issueNumber === number)
      .sort((a, b) => a.id - b.id);
    const { page, headers } = paginate(ctx, comments);
    return { status: 200, body: page.map((c) => issueComment(c, ctx.core.view)), headers };
  },

  'issues/update-comment': async (ctx) => {
    const comment = editComment(ctx.core, commentOf(ctx), (ctx.body as { body: string }).body, ctx.actor);
    return ok(issueComment(comment, ctx.core.view));
  },

  'reactions/create-for-issue-comment': async (ctx) => {
    const comment = commentOf(ctx);
    const content = (ctx.body as { content: ReactionContent }).content;
    // Reacting again with the same content is answered with the existing reaction (200), not a second one.
    const existing = comment.reactions.find((r) => r.user.id === ctx.actor.id && r.content === content);
    if (existing) return ok(reaction(existing, ctx.core.view), 200);
    const created = { id: ctx.core.state.nextId(), user: ctx.actor, content, createdAt: ctx.core.state.iso() };
    comment.reactions.push(created);
    return ok(reaction(created, ctx.core.view), 201);
  },

  'reactions/list-for-issue-comment': async (ctx) => {
    const comment = commentOf(ctx);
    const content = ctx.query.get('content');
    const reactions = comment.reactions.filter((r) => content === null || r.content === content);
    const { page, headers } = paginate(ctx, reactions);
    return { status: 200, body: page.map((r) => reaction(r, ctx.core.view)), headers };
  },
};

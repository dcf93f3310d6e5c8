import type { IssueComment, Reaction } from '../model';
import { integration } from './apps';
import { repoApiUrl, repoHtmlUrl } from './repos';
import { simpleUser } from './users';
import { nodeId } from './urls';
import type { View } from './view';

const CONTENTS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'eyes', 'rocket'] as const;

export const reaction = (r: Reaction, view: View) => ({
  id: r.id,
  node_id: nodeId('REA', r.id),
  user: simpleUser(r.user, view.urls),
  content: r.content,
  created_at: r.createdAt,
});

export const issueComment = (comment: IssueComment, view: View) => {
  const repo = view.state.repo(comment.repoId);
  const api = repoApiUrl(repo, view);
  const url = `${api}/issues/comments/${comment.id}`;
  return {
    id: comment.id,
    node_id: nodeId('IC', comment.id),
    url,
    body: comment.body,
    html_url: `${repoHtmlUrl(repo, view)}/pull/${comment.issueNumber}#issuecomment-${comment.id}`,
    user: simpleUser(comment.user, view.urls),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    issue_url: `${api}/issues/${comment.issueNumber}`,
    author_association: comment.user.id === repo.owner.id ? 'OWNER' : repo.collaborators.has(comment.user.login) ? 'COLLABORATOR' : 'NONE',
    performed_via_github_app: comment.viaAppId === null ? null : integration(view.state.app(comment.viaAppId), view),
    reactions: {
      url: `${url}/reactions`,
      total_count: comment.reactions.length,
      ...Object.fromEntries(CONTENTS.map((content) => [content, comment.reactions.filter((r) => r.content === content).length])),
    },
  };
};

import type { CommitStatus, FakeRepo, StatusState } from '../model';
import { minimalRepository, repoApiUrl } from './repos';
import { simpleUser } from './users';
import { nodeId } from './urls';
import type { View } from './view';

export const commitStatus = (status: CommitStatus, view: View) => {
  const repo = view.state.repo(status.repoId);
  return {
    url: `${repoApiUrl(repo, view)}/statuses/${status.sha}`,
    avatar_url: `${view.urls.html}/avatars/u/${status.creator.id}`,
    id: status.id,
    node_id: nodeId('SC', status.id),
    state: status.state,
    description: status.description,
    target_url: status.targetUrl,
    context: status.context,
    created_at: status.createdAt,
    updated_at: status.updatedAt,
    creator: simpleUser(status.creator, view.urls),
  };
};

/**
 * GitHub's combined state: failure if any latest status failed or errored, pending if any is pending
 * or there are none, else success.
 */
export const combinedState = (latest: CommitStatus[]): StatusState => {
  if (latest.some((s) => s.state === 'error' || s.state === 'failure')) return 'failure';
  if (latest.length === 0 || latest.some((s) => s.state === 'pending')) return 'pending';
  return 'success';
};

export const combinedStatus = (repo: FakeRepo, sha: string, latest: CommitStatus[], view: View) => {
  const api = repoApiUrl(repo, view);
  return {
    state: combinedState(latest),
    statuses: latest.map((status) => {
      const full = commitStatus(status, view);
      return {
        description: full.description,
        id: full.id,
        node_id: full.node_id,
        state: full.state,
        context: full.context,
        target_url: full.target_url,
        avatar_url: full.avatar_url,
        url: full.url,
        created_at: full.created_at,
        updated_at: full.updated_at,
      };
    }),
    sha,
    total_count: latest.length,
    repository: minimalRepository(repo, view),
    commit_url: `${api}/commits/${sha}`,
    url: `${api}/commits/${sha}/status`,
  };
};

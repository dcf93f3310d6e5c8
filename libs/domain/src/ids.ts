export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

// encodeURIComponent leaves `~` alone, so it is escaped too: that keeps `~` free as the separator and
// the id injective over (host, owner, name, branch) even for branches holding `/`, `@` or `~`.
const part = (s: string): string => encodeURIComponent(s).replace(/~/g, '%7E');

export const queueIdOf = (repo: RepoRef, branch: string): string => [repo.host, repo.owner, repo.name, branch].map(part).join('~');

export const queueStreamOf = (queueId: string): string => `queue-${queueId}`;

export const QUEUE_STREAM_PREFIX = 'queue-';

export const repoSlug = (repo: RepoRef): string => `${repo.owner}/${repo.name}`;

export const parseQueueId = (queueId: string): { repo: RepoRef; branch: string } => {
  const parts = queueId.split('~').map(decodeURIComponent);
  if (parts.length !== 4) throw new Error(`not a queue id: ${queueId}`);
  const [host, owner, name, branch] = parts as [string, string, string, string];
  return { repo: { host, owner, name }, branch };
};

import type { Mergeability, RepoRef } from '@railyard/domain';

/** The events the GitHub adapter announces; the same shape as the engine's HostEvent (libs/queue-driver/src/host/port.ts). */
export type GithubHostEvent =
  /** `closed`: the delivery says the PR was closed (the adapter ignores the one it caused by closing a landed PR). */
  | { kind: 'pull'; repo: RepoRef; number: number; closed?: true }
  | { kind: 'branch'; repo: RepoRef; branch: string }
  /**
   * `report`: the kind of report the delivery was about (a commit status, a check run or suite), so
   * only that kind is read again (docs/github.md, "Limits and REST budget"); absent: both.
   */
  | { kind: 'status'; repo: RepoRef; sha: string; report?: 'status' | 'check' }
  | { kind: 'mergeability'; repo: RepoRef; number: number; headSha: string; mergeability: Mergeability }
  | { kind: 'resync'; repo: RepoRef };

type Json = Record<string, unknown>;

const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const repoOf = (host: string, repository: unknown): RepoRef | null => {
  const r = obj(repository);
  const owner = str(obj(r?.owner)?.login);
  const name = str(r?.name);
  return owner && name ? { host, owner, name } : null;
};

/** `owner/name` of the repositories an installation event lists. */
const listedRepos = (host: string, payload: Json, keys: string[]): RepoRef[] =>
  keys.flatMap((key) => {
    const list = payload[key];
    if (!Array.isArray(list)) return [];
    return list.flatMap((item) => {
      const full = str(obj(item)?.full_name)?.split('/');
      return full && full.length === 2 && full[0] && full[1] ? [{ host, owner: full[0], name: full[1] }] : [];
    });
  });

/**
 * What a verified webhook delivery means for the engine: hints that name the fact to re-read (a PR, a
 * branch, the reports on a commit), never the fact itself, so a redelivered or reordered webhook does
 * no harm. `host` is the host name the repositories of this GitHub carry in queue ids (github.com).
 * Events that say nothing to the engine answer [].
 */
export const hostEventsOf = (host: string, event: string, payload: unknown): GithubHostEvent[] => {
  const p = obj(payload);
  if (!p) return [];
  const repo = repoOf(host, p.repository);
  switch (event) {
    case 'pull_request': {
      const number = obj(p.pull_request)?.number ?? p.number;
      if (!repo || typeof number !== 'number') return [];
      return [p.action === 'closed' ? { kind: 'pull', repo, number, closed: true } : { kind: 'pull', repo, number }];
    }
    case 'push': {
      const ref = str(p.ref);
      return repo && ref?.startsWith('refs/heads/') ? [{ kind: 'branch', repo, branch: ref.slice('refs/heads/'.length) }] : [];
    }
    case 'status': {
      const sha = str(p.sha);
      return repo && sha ? [{ kind: 'status', repo, sha, report: 'status' }] : [];
    }
    case 'check_suite':
    case 'check_run': {
      // A suite's runs are announced one by one; only the suite's end is worth a re-read more.
      if (event === 'check_suite' && p.action !== 'completed') return [];
      // A run still queued or in progress is pending, as an unreported check is: only a finished run
      // can change what the engine decides, so only it is worth a re-read (the 30 s expiry of the
      // adapter's memory catches anything else; docs/github.md, "Limits and REST budget").
      if (event === 'check_run' && obj(p.check_run)?.status !== 'completed') return [];
      const sha = str(obj(p[event])?.head_sha);
      return repo && sha ? [{ kind: 'status', repo, sha, report: 'check' }] : [];
    }
    case 'installation':
    case 'installation_repositories':
      // The App gained or lost repositories: whatever the engine knows of them may be stale.
      return listedRepos(host, p, ['repositories', 'repositories_added', 'repositories_removed']).map((r) => ({ kind: 'resync', repo: r }));
    default:
      return [];
  }
};

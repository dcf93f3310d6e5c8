import { type RepoRef, repoSlug } from '@railyard/domain';
import { GitHostError } from '@railyard/githost';
import type { GithubApp, GithubOctokit } from '../github-app';

/** The HTTP status of an Octokit error, or undefined for anything else (a lost connection). */
export const statusOf = (err: unknown): number | undefined => {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
};

/** The message GitHub answered with (`Update is not a fast forward`, `Merge conflict`). */
export const messageOf = (err: unknown): string => {
  const data = (err as { response?: { data?: { message?: unknown } } } | null)?.response?.data;
  if (typeof data?.message === 'string') return data.message;
  return err instanceof Error ? err.message : String(err);
};

/** A 404 answered as null; anything else thrown on. */
export const orNullOn404 = async <T>(call: Promise<T>): Promise<T | null> => {
  try {
    return await call;
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
};

const OWNER_OR_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,99})$/;

/**
 * One installation client per repository, found once through the App (`GET /repos/{o}/{r}/installation`)
 * and reused. A repository the App is not installed on reads as REPO_NOT_FOUND, which the engine reports
 * on the queue; the lookup is tried again on the next call (the App may be installed later).
 */
export class RepoClients {
  private readonly clients = new Map<string, Promise<GithubOctokit>>();

  constructor(private readonly app: GithubApp) {}

  /** The installation client of `repo`, after checking its owner and name are names GitHub allows. */
  async of(repo: RepoRef): Promise<GithubOctokit> {
    if (!OWNER_OR_NAME.test(repo.owner) || !OWNER_OR_NAME.test(repo.name) || repo.name.endsWith('.git'))
      throw new GitHostError('INVALID_INPUT', `not a GitHub repository name: ${repoSlug(repo)}`);
    const key = repoSlug(repo).toLowerCase();
    let client = this.clients.get(key);
    if (client === undefined) {
      client = this.lookup(repo);
      this.clients.set(key, client);
      client.catch(() => this.clients.delete(key));
    }
    return client;
  }

  /** Forgets the client of `repo` (the App was uninstalled or the repository removed from it). */
  forget(repo: RepoRef): void {
    this.clients.delete(repoSlug(repo).toLowerCase());
  }

  private async lookup(repo: RepoRef): Promise<GithubOctokit> {
    const id = await this.app.installationIdFor(repo.owner, repo.name);
    if (id === null) throw new GitHostError('REPO_NOT_FOUND', `the GitHub App is not installed on ${repoSlug(repo)}`);
    return this.app.installation(id);
  }
}

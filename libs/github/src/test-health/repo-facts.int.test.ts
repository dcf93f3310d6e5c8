import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RepoFactsUnavailable } from '@railyard/testhealth';
import { GITHUB_HOST, githubBedEach, type GithubBed } from '../../../../test/contract/support/github-bed';
import { createGithubApp } from '../github-app';
import { GITHUB_REQUESTS_METRIC } from '../request-metrics';
import { GithubRepoFacts } from './repo-facts';

// What the GitHub adapter of RepoFacts does beyond the contract (test/contract/repofacts.contract.ts):
// how often it asks GitHub, that an absence is never remembered, and that an outage is no absence.

jest.setTimeout(60_000);

const REPO = { host: GITHUB_HOST, owner: 'acme', name: 'widgets' };

describe('GithubRepoFacts on the fake GitHub', () => {
  let bed: GithubBed;
  githubBedEach((b) => (bed = b));

  /** REST calls the client made so far to `route`, as `railyard_github_requests_total` counts them. */
  const callsTo = async (route: string): Promise<number> => {
    const metric = await bed.registry.getSingleMetric(GITHUB_REQUESTS_METRIC)?.get();
    return (metric?.values ?? []).filter((v) => v.labels.route === route).reduce((n, v) => n + v.value, 0);
  };
  const ROUTES = {
    repo: 'GET /repos/{owner}/{repo}',
    commit: 'GET /repos/{owner}/{repo}/git/commits/{commit_sha}',
    head: 'GET /repos/{owner}/{repo}/git/ref/{ref}',
    contents: 'GET /repos/{owner}/{repo}/contents/{path}',
  };
  const counts = async () => ({
    repo: await callsTo(ROUTES.repo),
    commit: await callsTo(ROUTES.commit),
    head: await callsTo(ROUTES.head),
    contents: await callsTo(ROUTES.contents),
  });

  it('when facts are asked again within the TTL, then GitHub is asked once: the repository, the commit, the head and CODEOWNERS', async () => {
    const sha = await bed.fake.commit({ repo: 'acme/widgets', branch: 'main', files: { CODEOWNERS: '* @acme/core\n' } });
    const before = await counts();
    const facts = new GithubRepoFacts({ app: bed.app, ttlMs: 60_000 });
    for (let i = 0; i < 3; i += 1) {
      expect(await facts.exists(REPO)).toBe(true);
      expect(await facts.treeOf(REPO, sha)).toBe(await bed.fake.treeOf('acme/widgets', sha));
      expect((await facts.codeowners(REPO)).ownersOf('README.md')).toEqual(['@acme/core']);
    }
    // .github/CODEOWNERS is looked for first (a 404), then CODEOWNERS: two reads for the one head.
    const after = await counts();
    expect({
      repo: after.repo - before.repo,
      commit: after.commit - before.commit,
      head: after.head - before.head,
      contents: after.contents - before.contents,
    }).toEqual({ repo: 1, commit: 1, head: 1, contents: 2 });
  });

  it('when the default branch moves after the TTL, then CODEOWNERS of the new head is read', async () => {
    const facts = new GithubRepoFacts({ app: bed.app, ttlMs: 1 });
    expect((await facts.codeowners(REPO)).rules).toEqual([]);
    await bed.fake.commit({ repo: 'acme/widgets', branch: 'main', files: { '.github/CODEOWNERS': '* @acme/new\n' } });
    expect((await facts.codeowners(REPO)).ownersOf('README.md')).toEqual(['@acme/new']);
  });

  it('when the App is installed on a repository after it was asked about, then the repository exists at once (an absence is not remembered)', async () => {
    await bed.fake.createRepo({ repo: 'globex/tools', files: { 'README.md': '# tools\n' } });
    const tools = { host: GITHUB_HOST, owner: 'globex', name: 'tools' };
    const facts = new GithubRepoFacts({ app: bed.app, ttlMs: 60_000 });
    expect(await facts.exists(tools)).toBe(false);
    bed.fake.install({ account: 'globex' });
    expect(await facts.exists(tools)).toBe(true);
    expect(await facts.defaultBranch(tools)).toBe('main');
  });

  it('when GitHub cannot be reached or answers 5xx, then the facts throw RepoFactsUnavailable rather than reading as absent', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await createGithubApp({
      settings: {
        appId: bed.fake.appId,
        privateKey: bed.fake.appPrivateKey,
        webhookSecret: bed.fake.webhookSecret,
        apiUrl: `http://127.0.0.1:${port}`,
      },
      retryAfterUnitMs: 1,
      logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    await expect(new GithubRepoFacts({ app: unreachable }).exists(REPO)).rejects.toBeInstanceOf(RepoFactsUnavailable);

    bed.fake.faults.inject({ operation: 'git/get-commit', kind: 'server-error', status: 502, times: Infinity });
    const sha = (await bed.fake.branchSha('acme/widgets', 'main')) as string;
    await expect(new GithubRepoFacts({ app: bed.app }).treeOf(REPO, sha)).rejects.toBeInstanceOf(RepoFactsUnavailable);
  });
});

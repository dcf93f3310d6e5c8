import path from 'node:path';
import { Registry } from 'prom-client';
import { LocalRepoFacts } from '@railyard/githost';
import { createGithubApp, GITHUB_REQUESTS_METRIC, GithubRepoFacts } from '@railyard/github';
import type { RepoFacts, RepoRef } from '@railyard/testhealth';
import { createRepoWithCommits, FakeGithub, makeTempDir, removeTempDir } from '@railyard/testkit';
import { positiveIntFromEnv } from './support/settings';

/**
 * `npm run bench -- repofacts [local] [github]`: what test health's code-host facts cost per request
 * (docs/test-health.md, "What test health reads from the code host"), on the local git host's bare
 * repository and on GitHub (the fake GitHub, over HTTP on 127.0.0.1) with the same content.
 * - cold: a new adapter answers what one upload and one list need (exists, the commit's tree,
 *   CODEOWNERS): milliseconds and REST calls.
 * - warm: BENCH_RF_REQUESTS (default 2,000) rounds of what each list request asks (exists, CODEOWNERS)
 *   on the same adapter: p50/p99 and REST calls per round (0 while the 30 s entries are fresh).
 */

const FILES = { 'README.md': '# widgets\n', '.github/CODEOWNERS': '* @acme/core\nsrc/cart/ @acme/cart\n' };
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
const msSince = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e6;

interface Subject {
  facts: RepoFacts;
  repo: RepoRef;
  sha: string;
  /** REST calls so far (0 for the local host). */
  calls(): Promise<number>;
  close(): Promise<void>;
}

const localSubject = async (): Promise<Subject> => {
  const dir = await makeTempDir('railyard-bench-repofacts-');
  const root = path.join(dir, 'git');
  const repo = { host: 'git.bench', owner: 'acme', name: 'widgets' };
  const { sha } = await createRepoWithCommits(root, repo, { files: FILES });
  return { facts: new LocalRepoFacts(root), repo, sha, calls: async () => 0, close: () => removeTempDir(dir) };
};

const githubSubject = async (): Promise<Subject> => {
  const fake = await FakeGithub.start();
  await fake.createRepo({ repo: 'acme/widgets', files: FILES });
  fake.install({ account: 'acme' });
  const registry = new Registry();
  const app = await createGithubApp({
    settings: { appId: fake.appId, privateKey: fake.appPrivateKey, webhookSecret: fake.webhookSecret, apiUrl: fake.url },
    registry,
    logger: quiet,
  });
  const calls = async (): Promise<number> =>
    ((await registry.getSingleMetric(GITHUB_REQUESTS_METRIC)?.get())?.values ?? []).reduce((n, v) => n + v.value, 0);
  return {
    facts: new GithubRepoFacts({ app }),
    repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
    sha: (await fake.branchSha('acme/widgets', 'main')) as string,
    calls,
    close: () => fake.stop(),
  };
};

async function* measure(name: string, subject: Subject, requests: number): AsyncIterable<object> {
  const { facts, repo, sha } = subject;
  const before = await subject.calls();
  const started = process.hrtime.bigint();
  if (!(await facts.exists(repo))) throw new Error(`${name}: the repository is missing`);
  if ((await facts.treeOf(repo, sha)) === null) throw new Error(`${name}: the commit is missing`);
  if ((await facts.codeowners(repo)).ownersOf('src/cart/a.ts')[0] !== '@acme/cart') throw new Error(`${name}: wrong owners`);
  yield { name: `repofacts/cold/${name}`, ms: round(msSince(started)), restCalls: (await subject.calls()) - before };

  const warmBefore = await subject.calls();
  const latencies: number[] = [];
  for (let i = 0; i < requests; i += 1) {
    const t = process.hrtime.bigint();
    await facts.exists(repo);
    await facts.codeowners(repo);
    latencies.push(msSince(t));
  }
  latencies.sort((a, b) => a - b);
  yield {
    name: `repofacts/warm/${name}`,
    requests,
    p50Ms: round(percentile(latencies, 50), 3),
    p99Ms: round(percentile(latencies, 99), 3),
    restCallsPerRequest: round(((await subject.calls()) - warmBefore) / requests, 3),
  };
}

export async function* run(args: string[] = []): AsyncIterable<object> {
  const requests = positiveIntFromEnv('BENCH_RF_REQUESTS', 2_000);
  const wanted = (k: string) => !args.some((a) => a === 'local' || a === 'github') || args.includes(k);
  for (const [name, open] of [
    ['local', localSubject],
    ['github', githubSubject],
  ] as const) {
    if (!wanted(name)) continue;
    const subject = await open();
    try {
      yield* measure(name, subject, requests);
    } finally {
      await subject.close();
    }
  }
}

import path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { MemoryBlobStore, MemoryEventStore } from '@railyard/eventstore';
import { LocalGitHost, localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { MemoryMetricsStore, MemoryReadModelStore } from '@railyard/readmodels';
import { commitOnBranch, createRepoWithCommits, makeTempDir, openPr, removeTempDir } from '@railyard/testkit';
import request from 'supertest';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import { loadConfig } from '@railyard/runtime';
import { composeApi, type ComposedApi } from '../compose';
import type { GithubApiParts } from '../github';
import { openTestHealthStore, testHealthConfigOf } from '../test-health';

export const ADMIN_TOKEN = 'admin-secret-0123456789abcdef';
export const BED_REPO: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };

/**
 * The composed API over one memory event store and read models a timer projects into (as the
 * projector process would), on a local git repository with PRs 1..`prs` open from `feature-<n>`.
 * `replicas` APIs share the stores, each with its own command handler, as replicas behind a load
 * balancer do.
 */
export const apiBed = async (opts: { prs?: number; replicas?: number; github?: GithubApiParts } = {}) => {
  const dir = await makeTempDir();
  const gitRoot = path.join(dir, 'git');
  await createRepoWithCommits(gitRoot, BED_REPO, { files: { 'README.md': '# widgets\n' } });
  for (let n = 1; n <= (opts.prs ?? 1); n++) {
    await commitOnBranch(gitRoot, BED_REPO, { branch: `feature-${n}`, files: { [`f${n}.txt`]: `${n}\n` }, message: `Feature ${n}` });
    await openPr(gitRoot, { repo: BED_REPO, number: n, head: `feature-${n}`, base: 'main' });
  }
  const eventStore = new MemoryEventStore();
  const readModels = new MemoryReadModelStore();
  const statuses: CommitStatusStore[] = [];
  const blobs = new MemoryBlobStore();
  const testHealthConfig = testHealthConfigOf(loadConfig({}).testHealth, dir);
  const testHealthStore = openTestHealthStore('memory', { blobs, config: testHealthConfig });
  const compose = (): ComposedApi => {
    const status = localHostStatuses({ eventStore, gitRoot });
    statuses.push(status);
    return composeApi({
      eventStore,
      blobs,
      readModels,
      metrics: new MemoryMetricsStore(),
      testHealthStore,
      testHealthConfig,
      gitHost: new LocalGitHost({ root: gitRoot }),
      statuses: status,
      tokens: new TokenRegistry(parseTokenList(`ops:${ADMIN_TOKEN}:admin`)),
      logger: createLogger('test', 'error'),
      gitRoot,
      dataDir: dir,
      readYourWritesTimeoutMs: 20_000,
      rateLimitPerSecond: 0,
      rateLimitUnauthenticatedPerSecond: 0,
      maxBodyBytesInFlight: 64 * 1024 * 1024,
      ...(opts.github ? { github: opts.github } : {}),
    });
  };
  const replicas = Array.from({ length: opts.replicas ?? 1 }, compose);
  // The projector: whatever the store holds beyond each model's checkpoint, applied as soon as it is appended.
  const projecting = setInterval(() => {
    for (const models of [readModels, testHealthStore])
      void models.checkpoint().then(async (at) => models.apply(await eventStore.readAll(at, 100_000)));
  }, 5);
  return {
    eventStore,
    readModels,
    replicas,
    api: replicas[0] as ComposedApi,
    post: (p: string, body: object, api: ComposedApi = replicas[0] as ComposedApi) =>
      request(api.app).post(`/v1${p}`).set('x-api-token', ADMIN_TOKEN).send(body),
    close: async () => {
      clearInterval(projecting);
      await readModels.close();
      await testHealthStore.close();
      for (const api of replicas) await api.testHealth.close();
      for (const s of statuses) await s.close();
      await removeTempDir(dir);
    },
  };
};
export type ApiBed = Awaited<ReturnType<typeof apiBed>>;

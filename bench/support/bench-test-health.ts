import { createTestHealth, type TestHealth, type TestHealthConfig } from '@railyard/api';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import type { RepoRef } from '@railyard/domain';
import { MemoryBlobStore, type EventStore } from '@railyard/eventstore';
import type { Logger } from '@railyard/observability';
import { runProjector } from '@railyard/projector';
import { MemoryTestHealthStore } from '@railyard/readmodels';
import { testsStreamOf } from '@railyard/testhealth';
import { FLAKY_TEST } from './flaky-checks';

/** Test health as the benches run it: parsing in process, no sweeps, the default history limits. */
export const BENCH_TEST_HEALTH_CONFIG: TestHealthConfig = {
  orgSlug: 'railyard',
  pageTokenSecret: 'bench-page-token-secret',
  parseWorkers: 0,
  maxQueuedParses: 0,
  sweepMinutes: 0,
  maxRunsPerTest: 300,
  retentionDays: 60,
};

/**
 * The test-health feature on the bench's event store, as the embedded server composes it for its local
 * CI's uploads: its in-memory read models fed by a projector (the evaluator reads them).
 */
export const benchTestHealth = (
  eventStore: EventStore,
  gitRoot: string,
  logger: Logger,
): { testHealth: TestHealth; blobs: MemoryBlobStore; close(): Promise<void> } => {
  const blobs = new MemoryBlobStore();
  const config = BENCH_TEST_HEALTH_CONFIG;
  const store = new MemoryTestHealthStore({ blobs, maxRunsPerTest: config.maxRunsPerTest, retentionDays: config.retentionDays });
  const testHealth = createTestHealth({
    eventStore,
    blobs,
    store,
    tokens: new TokenRegistry(parseTokenList('bench:bench-token-0123456789abcdef:admin')),
    logger,
    gitRoot,
    config,
    serverUrl: () => 'http://bench',
  });
  const projector = runProjector({ eventStore, readModels: store, logger });
  return {
    testHealth,
    blobs,
    close: async () => {
      await testHealth.close();
      await projector.stop();
      await store.close();
    },
  };
};

const junit = (flakyFailed: boolean): Buffer =>
  Buffer.from(
    `<testsuites><testsuite name="bench">` +
      `<testcase classname="bench" name="${FLAKY_TEST}">${flakyFailed ? '<failure message="failed"/>' : ''}</testcase></testsuite></testsuites>\n`,
  );

/**
 * The history that classifies the flaky test before the queue runs, the way it is learnt in use: one
 * pull request's CI failed it and passed it on a re-run of the same commit (pass on retry). Evidence from one pull request only: the test
 * is FLAKY, not corroborated, so not quarantined (docs/test-health.md §4) until the queue's own
 * re-runs show it flaky on other pull requests. Returns the status the evaluator recorded.
 */
export const seedFlakyHistory = async (th: TestHealth, eventStore: EventStore, repo: RepoRef, commitSha: string): Promise<string> => {
  for (const failed of [true, false])
    await th.recorder.record(
      {
        repo,
        branch: 'pr-900',
        prNumber: 900,
        commitSha,
        ciJob: 'bench',
        reporter: 'token:bench',
        files: [{ name: 'junit.xml', bytes: junit(failed) }],
      },
      { actor: 'bench', correlationId: 'bench-seed' },
    );
  const changes = (await eventStore.readStream(testsStreamOf(repo))).filter((e) => e.type === 'TestStatusChanged');
  const last = changes.at(-1)?.data as { status?: string; corroborated?: boolean } | undefined;
  return `${last?.status ?? 'none'}${last?.corroborated ? ' (corroborated)' : ''}`;
};

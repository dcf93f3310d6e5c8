import type { Router } from 'express';
import type { BlobStore, EventStore } from '@railyard/eventstore';
import type { GithubApp } from '@railyard/github';
import type { Logger } from '@railyard/observability';
import { MemoryTestHealthStore, RedisTestHealthStore, type TestHealthReadModels } from '@railyard/readmodels';
import { operationsRouter } from '../http/operations-router';
import type { TokenRegistry } from '@railyard/auth';
import type { TestHealthConfig } from './config';
import type { TestHealthContext } from './context';
import { TestEvaluator } from './evaluator';
import { EvidenceReporters } from './evidence-reporters';
import { evidenceReporterOperations } from './routes/evidence-reporters';
import { failingOperations } from './routes/failing';
import { listOperations } from './routes/list';
import { JUnitParsePool } from './parse-pool';
import { quarantineOperations } from './routes/quarantine';
import { UploadRecorder } from './recorder';
import { reportUploader, type UploadReports } from './report-uploader';
import { repoFactsOf } from './repo-facts';
import { startSweeper, type SweeperHandle } from './sweeper';
import { uploadOperations } from './routes/upload';
import { TestHealthWriter, type Clock } from './writer';

export interface TestHealthOptions {
  eventStore: EventStore;
  blobs: BlobStore;
  store: TestHealthReadModels;
  tokens: TokenRegistry;
  logger: Logger;
  gitRoot: string;
  /** The GitHub App and its host name: test health reads that host's repositories through it. */
  github?: { host: string; app: GithubApp };
  config: TestHealthConfig;
  clock?: Clock;
  readYourWritesTimeoutMs?: number;
  /** The server's own address, used for html_url when RAILYARD_PUBLIC_URL is not set. */
  serverUrl: () => string;
}

export interface TestHealth {
  /** The feature's endpoints, for buildApp's routers. */
  router: Router;
  /** The local CI runner's uploadReports callback. */
  uploadReports: UploadReports;
  recorder: UploadRecorder;
  sweeper: SweeperHandle;
  close(): Promise<void>;
}

/** JUnit uploads, flaky and broken tests, quarantine: the feature's endpoints. */
export const testHealthOperations = [
  ...uploadOperations,
  ...listOperations,
  ...failingOperations,
  ...quarantineOperations,
  ...evidenceReporterOperations,
];

/** The test-health read models of a deployment shape: in memory (embedded) or in Redis beside the queue models. */
export const openTestHealthStore = (
  kind: 'memory' | 'redis',
  options: { blobs: BlobStore; config: TestHealthConfig; redisUrl?: string; namespace?: string },
): TestHealthReadModels => {
  const common = { blobs: options.blobs, maxRunsPerTest: options.config.maxRunsPerTest, retentionDays: options.config.retentionDays };
  if (kind === 'memory') return new MemoryTestHealthStore(common);
  if (!options.redisUrl) throw new Error('RAILYARD_REDIS_URL is required for Redis read models');
  return new RedisTestHealthStore({ ...common, redis: options.redisUrl, namespace: options.namespace ?? 'rm1' });
};

/** Builds the whole test-health feature for a composition root (embedded server or distributed API). */
export const createTestHealth = (options: TestHealthOptions): TestHealth => {
  const clock = options.clock ?? { now: () => new Date() };
  const { config, logger } = options;
  const facts = repoFactsOf(options.gitRoot, options.github);
  const pool = new JUnitParsePool({ workers: config.parseWorkers, maxQueued: config.maxQueuedParses, logger });
  const writer = new TestHealthWriter(options.eventStore, options.store, logger, {
    readYourWritesTimeoutMs: options.readYourWritesTimeoutMs,
  });
  const evidenceReporters = new EvidenceReporters(options.eventStore);
  const evaluator = new TestEvaluator(options.store, writer, facts, clock, logger, evidenceReporters);
  const recorder = new UploadRecorder({ pool, blobs: options.blobs, writer, evaluator, facts, clock, logger, orgSlug: config.orgSlug });
  const context: TestHealthContext = {
    config,
    tokens: options.tokens,
    store: options.store,
    facts,
    recorder,
    evaluator,
    evidenceReporters,
    writer,
    clock,
    baseUrl: () => config.publicUrl ?? options.serverUrl(),
  };
  const router = operationsRouter(testHealthOperations, context);
  const sweeper = startSweeper({ store: options.store, evaluator, logger, minutes: config.sweepMinutes });
  return {
    router,
    uploadReports: reportUploader(recorder, facts, logger),
    recorder,
    sweeper,
    close: async () => {
      await sweeper.stop();
      await pool.close();
    },
  };
};

import { MemoryBlobStore, MemoryEventStore } from '@railyard/eventstore';
import { MemoryTestHealthStore } from '@railyard/readmodels';
import type { TestHealthConfig } from '../config';
import { createTestHealth, type TestHealthOptions } from '../create';

/** One parse worker, no sweeper: what the feature's own tests run with. */
export const TEST_CONFIG: TestHealthConfig = {
  orgSlug: 'acme-org',
  pageTokenSecret: 'a-secret-for-the-test',
  parseWorkers: 1,
  maxQueuedParses: 4,
  sweepMinutes: 0,
  maxRunsPerTest: 100,
  retentionDays: 60,
};

/** Test health on in-memory stores and the local host under `gitRoot`; anything given replaces the default. */
export const inMemoryTestHealth = (o: Pick<TestHealthOptions, 'tokens' | 'logger' | 'gitRoot'> & Partial<TestHealthOptions>) => {
  const events = new MemoryEventStore();
  const blobs = new MemoryBlobStore();
  const store = new MemoryTestHealthStore({ blobs });
  const testHealth = createTestHealth({
    eventStore: events,
    blobs,
    store,
    config: TEST_CONFIG,
    serverUrl: () => 'http://railyard.test',
    ...o,
  });
  return { events, blobs, store, testHealth };
};

import { FsBlobStore, PostgresBlobStore, RedisBlobStore, type BlobStore } from '@railyard/eventstore';
import { createTestDatabase, DEFAULT_TEST_POSTGRES_URL, makeTempDir, removeTempDir, type TestDatabase } from '@railyard/testkit';
import { blobStoreConfigOf, openBlobStore } from './adapters';
import { loadConfig, withDistributedRedis } from './config';

const redisUrl = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const adminUrl = process.env.RAILYARD_TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL;

describe('openBlobStore', () => {
  let db: TestDatabase;
  let dataDir: string;
  const opened: BlobStore[] = [];
  const open = async (env: Record<string, string>): Promise<BlobStore> => {
    const store = await openBlobStore(loadConfig({ RAILYARD_DATA_DIR: dataDir, ...env }));
    opened.push(store);
    return store;
  };

  beforeAll(async () => {
    db = await createTestDatabase(adminUrl, 'runtime blobs');
  });

  afterAll(() => db.drop());

  beforeEach(async () => {
    dataDir = await makeTempDir('railyard-runtime-blobs-');
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await removeTempDir(dataDir);
  });

  it('when the event store is PostgreSQL, then blobs go to its database even if Redis is configured too', async () => {
    const store = await open({ RAILYARD_POSTGRES_URL: db.url, RAILYARD_POSTGRES_SCHEMA: 'blobs_here', RAILYARD_REDIS_URL: redisUrl });

    expect(store).toBeInstanceOf(PostgresBlobStore);
    const digest = await store.put(Buffer.from('shared'));
    const other = await open({ RAILYARD_POSTGRES_URL: db.url, RAILYARD_POSTGRES_SCHEMA: 'blobs_here' });
    expect((await other.get(digest))?.toString()).toBe('shared');
  });

  it('when only Redis is shared, then blobs go to Redis', async () => {
    expect(await open({ RAILYARD_REDIS_URL: redisUrl })).toBeInstanceOf(RedisBlobStore);
  });

  it('when nothing is shared, then blobs go to the data dir', async () => {
    expect(await open({})).toBeInstanceOf(FsBlobStore);
  });

  it('when a standalone process leaves Redis to its default, then its blobs are in that Redis, as every other standalone process finds them', () => {
    const config = withDistributedRedis(loadConfig({ RAILYARD_DATA_DIR: dataDir, RAILYARD_REDIS_NAMESPACE: 'rm9' }));

    expect(blobStoreConfigOf(config)).toEqual({ kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: 'ry:{rm9}:blob:' });
    expect(blobStoreConfigOf(loadConfig({ RAILYARD_DATA_DIR: dataDir }))).toMatchObject({ kind: 'fs' });
  });
});

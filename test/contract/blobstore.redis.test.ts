import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { RedisBlobStore, sha256Hex } from '../../libs/eventstore/src';
import { blobStoreContract } from './blobstore.contract';

const url = process.env.RAILYARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Unique to this run, so runs never see each other's keys and cleanup touches only ours. */
const runPrefix = `railyard-test:{blob-${randomUUID()}}:`;
let admin: Redis;

async function deleteKeys(pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    if (keys.length > 0) await admin.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

beforeAll(() => {
  admin = new Redis(url);
});

afterAll(async () => {
  await deleteKeys(`${runPrefix}*`);
  await admin.quit();
});

let storeCount = 0;
blobStoreContract('redis', async () => {
  const prefix = `${runPrefix}${++storeCount}:`;
  return { store: new RedisBlobStore({ url, prefix }), cleanup: () => deleteKeys(`${prefix}*`) };
});

describe('redis blob store', () => {
  it('when a blob is put, then Redis holds the bytes unchanged under prefix + digest', async () => {
    const prefix = `${runPrefix}layout:`;
    const store = new RedisBlobStore({ url, prefix });
    const bytes = Buffer.from([1, 2, 3, 0, 255]);
    await store.put(bytes);
    await store.close();

    expect(await admin.getBuffer(prefix + sha256Hex(bytes))).toEqual(bytes);
  });

  it('when the store was given a client, then close leaves that client connected', async () => {
    const client = new Redis(url);
    const store = new RedisBlobStore({ client, prefix: `${runPrefix}shared:` });
    await store.put(Buffer.from('x'));
    await store.close();

    await expect(client.ping()).resolves.toBe('PONG');
    await client.quit();
  });
});

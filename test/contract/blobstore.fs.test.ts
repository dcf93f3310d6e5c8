import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBlobStore } from '../../libs/eventstore/src';
import { blobStoreContract } from './blobstore.contract';

const tempDir = (): Promise<string> => mkdtemp(join(tmpdir(), 'railyard-blobs-'));

blobStoreContract('filesystem', async () => {
  const dir = await tempDir();
  return { store: new FsBlobStore({ dir }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describe('filesystem blob store', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await tempDir();
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('when a blob is put, then it lands at <dir>/<2 hex>/<62 hex> and no temporary file is left', async () => {
    const store = new FsBlobStore({ dir: join(dir, 'not-yet-there') });
    const digest = await store.put(Buffer.from('layout'));

    expect(await readdir(join(dir, 'not-yet-there'))).toEqual([digest.slice(0, 2)]);
    expect(await readdir(join(dir, 'not-yet-there', digest.slice(0, 2)))).toEqual([digest.slice(2)]);
  });

  it('when a store is opened again on the same directory, then earlier blobs are readable', async () => {
    const digest = await new FsBlobStore({ dir }).put(Buffer.from('kept'));

    expect((await new FsBlobStore({ dir }).get(digest))?.toString()).toBe('kept');
  });

  it('when a crash left a temporary file behind, then it is never served as a blob', async () => {
    const store = new FsBlobStore({ dir });
    const digest = await store.put(Buffer.from('whole'));
    await writeFile(join(dir, digest.slice(0, 2), '.tmp-deadbeef'), 'half');

    expect((await store.get(digest))?.toString()).toBe('whole');
    expect(await store.get(`${digest.slice(0, 2)}.tmp-deadbeef`)).toBeNull();
  });
});

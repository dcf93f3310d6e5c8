import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { createBlobStore, type BlobStore } from '@railyard/eventstore';
import { createTestDatabase, makeTempDir, removeTempDir } from '@railyard/testkit';
import { dropNamespace } from './support/redis-namespace';
import { positiveIntFromEnv, postgresUrlFromEnv, redisUrlFromEnv, uniqueNamespace } from './support/settings';

/**
 * `npm run bench -- blobs [fs] [redis] [postgres]`: the time of one put and one get of a blob, on
 * each blob store the processes may share (docs/operations.md, "Blobs"), for the sizes that occur:
 * a small impacted-target list (16 KiB), a large JUnit case list (1 MiB), an archived CI log at its
 * cap (4 MiB, put by name, which overwrites) and an impacted-target list at the body limit (20 MiB).
 * Every put is of new bytes, so none is skipped as already stored. BENCH_BLOB_ROUNDS (default 20)
 * rounds per case, one at a time.
 */

const SIZES = [
  { label: '16KiB', bytes: 16 * 1024, named: false },
  { label: '1MiB', bytes: 1024 * 1024, named: false },
  { label: '4MiB-named', bytes: 4 * 1024 * 1024, named: true },
  { label: '20MiB', bytes: 20 * 1024 * 1024, named: false },
];

interface Backend {
  name: string;
  store: BlobStore;
  cleanup: () => Promise<void>;
}

const fsBackend = async (): Promise<Backend> => {
  const dir = await makeTempDir('railyard-bench-blobs-');
  return { name: 'fs', store: await createBlobStore({ kind: 'fs', dir }), cleanup: () => removeTempDir(dir) };
};

const redisBackend = async (): Promise<Backend> => {
  const url = redisUrlFromEnv();
  const namespace = uniqueNamespace('blobs');
  const store = await createBlobStore({ kind: 'redis', url, prefix: `ry:{${namespace}}:blob:` });
  return { name: 'redis', store, cleanup: async () => void (await dropNamespace(url, namespace)) };
};

const postgresBackend = async (): Promise<Backend> => {
  const db = await createTestDatabase(postgresUrlFromEnv(), 'bench_blobs');
  return { name: 'postgres', store: await createBlobStore({ kind: 'postgres', url: db.url }), cleanup: () => db.drop() };
};

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const max = (values: number[]): number => Math.max(0, ...values);
const round = (n: number): number => Math.round(n * 100) / 100;

export async function* run(args: string[] = []): AsyncIterable<object> {
  const rounds = positiveIntFromEnv('BENCH_BLOB_ROUNDS', 20);
  const wanted = (name: string) => args.length === 0 || args.includes(name);
  const makers = [
    { name: 'fs', make: fsBackend },
    { name: 'redis', make: redisBackend },
    { name: 'postgres', make: postgresBackend },
  ].filter((m) => wanted(m.name));
  for (const { make } of makers) {
    const backend = await make();
    try {
      for (const size of SIZES) {
        process.stderr.write(`[bench blobs] ${backend.name} ${size.label}\n`);
        const puts: number[] = [];
        const gets: number[] = [];
        for (let i = 0; i < rounds; i++) {
          const bytes = randomBytes(size.bytes);
          const name = `bench/${size.label}`;
          let started = performance.now();
          const key = size.named ? (await backend.store.putNamed(name, bytes), name) : await backend.store.put(bytes);
          puts.push(performance.now() - started);
          started = performance.now();
          const read = size.named ? await backend.store.getNamed(key) : await backend.store.get(key);
          gets.push(performance.now() - started);
          if (read?.length !== size.bytes) throw new Error(`${backend.name} ${size.label}: read back ${read?.length ?? 'nothing'}`);
        }
        yield {
          name: `blobs/${backend.name}/${size.label}`,
          putMedianMs: round(median(puts)),
          putMaxMs: round(max(puts)),
          getMedianMs: round(median(gets)),
          getMaxMs: round(max(gets)),
          rounds,
          loadAvg1m: round(os.loadavg()[0] ?? 0),
        };
      }
    } finally {
      await backend.store.close();
      await backend.cleanup();
    }
  }
}

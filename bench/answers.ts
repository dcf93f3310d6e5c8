import { RedisReadModelStore } from '@railyard/readmodels';
import type { QueueCommand } from '@railyard/domain';
import Redis from 'ioredis';
import { redisCpuMs, seedPausedQueue, submit } from './scale-projector';
import { dropNamespace } from './support/redis-namespace';
import { positiveIntFromEnv, redisUrlFromEnv, uniqueNamespace } from './support/settings';

/**
 * `npm run bench -- answers`: distributed getQueue under a dashboard's polling, with the answers an
 * API replica keeps until the queue's next batch (D253) against every read building its answer
 * (`RAILYARD_REDIS_STORED_ANSWERS=off`, D332). One paused queue of N active PRs in Redis read models;
 * BENCH_READS reads, with a re-submit batch landing every `readsPerBatch` reads (0: none, a quiet queue;
 * 1: the queue changes between every two polls, as while it drains fast). Counts CPU, not time: the
 * reading process's per read, and Redis's per read (the whole server's, so other users show).
 *
 *   BENCH_SIZES   active PRs, comma-separated (10,100,1000)
 *   BENCH_READS   reads per row (40)
 */

const PACES = [0, 4, 1];
const round = (n: number, d = 0): number => Math.round(n * 10 ** d) / 10 ** d;
const progress = (line: string): void => void process.stderr.write(`[bench answers] ${line}\n`);

const measure = async (url: string, prs: number, readsPerBatch: number, stored: boolean, reads: number) => {
  const namespace = uniqueNamespace('answers');
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  const store = new RedisReadModelStore({ redis, namespace, storedAnswers: stored });
  try {
    const { run, recorder } = await seedPausedQueue(store, prs);
    let changes = 0;
    const change = () =>
      store.apply(recorder.record('bench', ...run({ ...submit(1 + ((changes++ * 7) % prs)), priority: 'low' } as QueueCommand)));
    // Warm: scripts loaded, code paths compiled.
    await store.getQueueAnswer('bench');
    let cpuUs = 0;
    let bytes = 0;
    const redisBefore = await redisCpuMs(redis);
    for (let i = 0; i < reads; i++) {
      if (readsPerBatch > 0 && i % readsPerBatch === 0) await change();
      const before = process.cpuUsage();
      bytes = Buffer.byteLength((await store.getQueueAnswer('bench')) ?? '');
      const d = process.cpuUsage(before);
      cpuUs += d.user + d.system;
    }
    // Redis's CPU covers the batches too: the same batches in both shapes, so the difference is the reads'.
    const redisUs = ((await redisCpuMs(redis)) - redisBefore) * 1000;
    return { readCpuUs: round(cpuUs / reads), redisCpuUs: round(redisUs / reads), answerKb: round(bytes / 1024) };
  } finally {
    await store.close();
    redis.disconnect();
    await dropNamespace(url, namespace);
  }
};

export async function* run(): AsyncIterable<object> {
  const url = redisUrlFromEnv();
  const sizes = (process.env.BENCH_SIZES ?? '10,100,1000').split(',').map(Number);
  const reads = positiveIntFromEnv('BENCH_READS', 40);
  for (const prs of sizes)
    for (const readsPerBatch of PACES) {
      progress(`${prs} PRs, a batch every ${readsPerBatch || '∞'} reads`);
      const storedRow = await measure(url, prs, readsPerBatch, true, reads);
      const builtRow = await measure(url, prs, readsPerBatch, false, reads);
      yield {
        name: `answers/getQueue/${prs}`,
        prs,
        readsPerBatch,
        reads,
        storedReadCpuUs: storedRow.readCpuUs,
        builtReadCpuUs: builtRow.readCpuUs,
        storedRedisCpuUs: storedRow.redisCpuUs,
        builtRedisCpuUs: builtRow.redisCpuUs,
        // What the stored answers save the reading process per read: built / stored.
        ratio: storedRow.readCpuUs > 0 ? round(builtRow.readCpuUs / storedRow.readCpuUs, 2) : 0,
        answerKb: storedRow.answerKb,
      };
    }
}

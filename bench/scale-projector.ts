import { decide, evolve, initialQueueState, type DecideContext, type QueueCommand, type QueueEvent } from '@railyard/domain';
import { RedisReadModelStore } from '@railyard/readmodels';
import { RecordedEventFactory } from '@railyard/readmodels/testing';
import type Redis from 'ioredis';
import { redisCurve } from './support/redis-curve';

/**
 * The distributed shape's read side per event (issue 29): one paused queue holding N active PRs in
 * Redis read models, then re-submits with a new priority, each applied as its own batch as the
 * projector applies them. Reports the projector's CPU (this process: folding, answers, ioredis) and
 * wall time per batch, and Redis's own CPU per batch (the whole server's, so other users of it show);
 * then the read side's CPU for a getQueue answer (built after a batch, then stored) and a PR's answer.
 */

const EPOCH = Date.UTC(2025, 0, 6);
const REPO = { host: 'bench.local', owner: 'acme', name: 'scale' };
const RESUBMITS = 100;
const READS = 3;
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

export const submit = (n: number): QueueCommand => ({
  type: 'SubmitPullRequest',
  pr: { number: n, title: `PR ${n}`, author: 'bench', headSha: `head-${n}`, baseBranch: 'main', state: 'open', mergeability: 'mergeable' },
});

export const redisCpuMs = async (redis: Redis): Promise<number> => {
  const info = await redis.info('cpu');
  const field = (name: string): number => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
};

/**
 * One paused queue 'bench' holding `prs` active PRs in `store`, applied in batches of 500 events as
 * the projector would; `run` decides and folds a further command, whose events the caller applies.
 */
export const seedPausedQueue = async (store: RedisReadModelStore, prs: number) => {
  let state = initialQueueState();
  let ids = 0;
  const ctx: DecideContext = { now: new Date(EPOCH).toISOString(), newId: () => `entry-${++ids}` };
  const recorder = new RecordedEventFactory();
  const run = (c: QueueCommand): QueueEvent[] => {
    const events = decide(state, c, ctx);
    for (const e of events) state = evolve(state, e);
    return events;
  };
  let pending = run({ type: 'CreateQueue', queueId: 'bench', repo: REPO, branch: 'main', requiredStatuses: ['tests'], state: 'paused' });
  for (let n = 1; n <= prs; n++) {
    pending.push(...run(submit(n)));
    if (pending.length >= 500) {
      await store.apply(recorder.record('bench', ...pending));
      pending = [];
    }
  }
  if (pending.length > 0) await store.apply(recorder.record('bench', ...pending));
  return { run, recorder };
};

export const projectorCurve = (sizes: number[], progress: (line: string) => void): Promise<Record<string, number>[]> =>
  redisCurve(
    sizes,
    'scaleproj',
    (redis, namespace) => new RedisReadModelStore({ redis, namespace }),
    async (prs, store, redis) => {
      const { run, recorder } = await seedPausedQueue(store, prs);
      let cpu = 0;
      let wallMs = 0;
      const redisBefore = await redisCpuMs(redis);
      for (let i = 0; i < RESUBMITS; i++) {
        const events = run({ ...submit(1 + ((i * 7) % prs)), priority: i % 2 === 0 ? 'high' : 'medium' } as QueueCommand);
        const batch = recorder.record('bench', ...events);
        const before = process.cpuUsage();
        const started = process.hrtime.bigint();
        await store.apply(batch);
        wallMs += Number(process.hrtime.bigint() - started) / 1e6;
        const d = process.cpuUsage(before);
        cpu += d.user + d.system;
      }
      const redisMs = (await redisCpuMs(redis)) - redisBefore;
      // What moved to the read side: the first getQueue after a batch builds the answer, later ones GET it.
      const readCpu = async (read: () => Promise<unknown>): Promise<number> => {
        const before = process.cpuUsage();
        await read();
        const d = process.cpuUsage(before);
        return d.user + d.system;
      };
      let buildUs = 0;
      let storedUs = 0;
      for (let i = 0; i < READS + 1; i++) {
        await store.apply(recorder.record('bench', ...run({ ...submit(1 + i), priority: 'low' } as QueueCommand)));
        const build = await readCpu(() => store.getQueueAnswer('bench'));
        const stored = await readCpu(() => store.getQueueAnswer('bench'));
        // The first round loads scripts and warms the code paths up.
        if (i > 0) [buildUs, storedUs] = [buildUs + build / READS, storedUs + stored / READS];
      }
      let prUs = 0;
      for (let i = 0; i < 20; i++) prUs += await readCpu(() => store.getPrAnswer('bench', prs - (i % prs)));
      return {
        prs,
        resubmitCpuUs: round(cpu / RESUBMITS, 0),
        resubmitWallUs: round((wallMs * 1000) / RESUBMITS, 0),
        redisCpuUs: round((redisMs * 1000) / RESUBMITS, 0),
        queueAnswerBuildCpuUs: round(buildUs, 0),
        queueAnswerStoredCpuUs: round(storedUs, 0),
        prAnswerCpuUs: round(prUs / 20, 0),
        answerKb: round(Buffer.byteLength((await store.getQueueAnswer('bench')) ?? '') / 1024, 0),
      };
    },
    progress,
  );

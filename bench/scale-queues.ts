import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { QueueCommand } from '@railyard/domain';
import { decide, evolve, initialQueueState, queueIdOf, queueStreamOf, QUEUE_EVENT_SCHEMA_VERSION } from '@railyard/domain';
import { CommandHandler, SqliteEventStore } from '@railyard/eventstore';
import { queueCommandHandler } from '@railyard/runtime';
import { makeTempDir, removeTempDir } from '@railyard/testkit';

/**
 * `npm run bench -- scale queues [N...]` (issue 29, docs/decisions.md D321): N idle queues in a SQLite
 * log, each a stream of one CreateQueue and PRS submissions, read in turn as the engine's tick reads
 * every queue each second. The CPU per queue per round of the queue command handler as shipped,
 * beside the same handler with the budget it had before D321 (1,000 streams, whatever they weigh):
 * past 1,000 queues every read there misses and folds the whole stream again.
 */

const PRS = 10;
const ROUNDS = 5;
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const meta = { actor: 'bench', correlationId: 'bench' };

const submit = (n: number): QueueCommand => ({
  type: 'SubmitPullRequest',
  pr: { number: n, title: `PR ${n}`, author: 'bench', headSha: `head-${n}`, baseBranch: 'main', state: 'open', mergeability: 'mergeable' },
});

/** CPU microseconds per stream per round of reading every stream `ROUNDS` times, after one warming round. */
const perRead = async (streams: string[], read: (s: string) => Promise<unknown>): Promise<number> => {
  for (const s of streams) await read(s);
  const before = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) for (const s of streams) await read(s);
  const d = process.cpuUsage(before);
  return round((d.user + d.system) / ROUNDS / streams.length, 1);
};

export const queuesCurve = async (sizes: number[], progress: (line: string) => void): Promise<Record<string, number>[]> => {
  const rows: Record<string, number>[] = [];
  for (const queues of sizes) {
    const dir = await makeTempDir('railyard-bench-queues-');
    const store = new SqliteEventStore({ file: path.join(dir, 'events.sqlite'), synchronous: 'normal' });
    try {
      const writer = queueCommandHandler(store, decide);
      const streams: string[] = [];
      for (let q = 0; q < queues; q++) {
        const repo = { host: 'bench.local', owner: 'acme', name: `repo${q}` };
        const cmd: QueueCommand = { type: 'CreateQueue', queueId: 'x', repo, branch: 'main', requiredStatuses: ['tests'], state: 'paused' };
        await writer.execute({ repo, branch: 'main' }, cmd, meta);
        for (let n = 1; n <= PRS; n++) await writer.execute({ repo, branch: 'main' }, submit(n), meta);
        streams.push(queueStreamOf(queueIdOf(repo, 'main')));
      }
      // Fresh handlers, so each starts with an empty cache.
      const shipped = queueCommandHandler(store, decide);
      const before = new CommandHandler(
        store,
        { initialState: initialQueueState, evolve, decide },
        {
          context: () => ({ now: new Date().toISOString(), newId: randomUUID }),
          newEventId: randomUUID,
          schemaVersion: QUEUE_EVENT_SCHEMA_VERSION,
          now: () => new Date().toISOString(),
          maxCachedStreams: 1000,
        },
      );
      const row = {
        queues,
        beforeReadCpuUs: await perRead(streams, (s) => before.read(s)),
        readCpuUs: await perRead(streams, (s) => shipped.read(s)),
      };
      progress(JSON.stringify(row));
      rows.push(row);
    } finally {
      await store.close();
      await removeTempDir(dir);
    }
  }
  return rows;
};

import { readdir, stat } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { CI_LOG_SPACE, EXPIRED_LOG_NOTE } from '@railyard/ci';
import { parseQueueId, QUEUE_STREAM_PREFIX, type RepoRef } from '@railyard/domain';
import {
  FsBlobStore,
  PostgresBlobStore,
  PostgresEventStore,
  SqliteEventStore,
  type BlobStore,
  type EventStore,
  type NewEvent,
  type StreamRetention,
} from '@railyard/eventstore';
import { COMMIT_STATUS_REPORTED, STATUS_STREAM_PREFIX, statusStreamOf } from '@railyard/githost';
import { DEFAULT_TEST_POSTGRES_URL, makeTempDir, removeTempDir } from '@railyard/testkit';
import { workload, type WorkloadAppend } from './support/workload';

/**
 * `npm run bench -- retention [sqlite|postgres] [events] [days] [logKiB]`: what a retention sweep
 * (docs/decisions.md D296) removes from a realistic history. The rebuild workload's queue events
 * (bench/support/workload.ts, `events` of them, default 100,000) are stretched over `days` (default 90)
 * and, as the local CI does, every status the engine records is also a commit status in its commit's
 * stream, beside an advisory check's pending and final reports per run; every final report archives a
 * log of `logKiB` (default 16). Then statuses and logs older than 30 days are swept. Printed: events,
 * bytes of event JSON, the store's size, and archived log bytes, before and after, with each sweep's
 * wall and CPU time (this process's; PostgreSQL's own CPU is not in it).
 */
const DAY = 86_400_000;
const RETENTION_DAYS = 30;
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const progress = (line: string): void => void process.stderr.write(`[bench retention] ${line}\n`);
const mb = (bytes: number): number => round(bytes / 1024 / 1024, 1);

interface Target {
  events: EventStore & StreamRetention;
  blobs: BlobStore;
  /** Events, status events, JSON bytes of all events, and the store's size on disk. */
  measure(): Promise<{ events: number; statusEvents: number; jsonMb: number; storeMb: number; logMb: number }>;
  close(): Promise<void>;
}

/** The clock the stores record with: moved to each append's (stretched) time before it is made. */
const clock = { at: 0 };
const now = (): Date => new Date(clock.at);

const sqliteTarget = async (): Promise<Target> => {
  const dir = await makeTempDir('railyard-bench-retention-');
  const file = path.join(dir, 'events.sqlite');
  const events = new SqliteEventStore({ file, synchronous: 'normal', now });
  const blobs = new FsBlobStore({ dir: path.join(dir, 'blobs') });
  return {
    events,
    blobs,
    measure: async () => {
      const db = new Database(file);
      try {
        // VACUUM so the size is what the rows now need: SQLite keeps freed pages for reuse otherwise.
        db.exec('VACUUM');
        const row = db
          .prepare(
            `SELECT COUNT(*) AS events, SUM(stream_id >= ? AND stream_id < ?) AS statuses,
                    SUM(LENGTH(CAST(data AS BLOB)) + LENGTH(CAST(metadata AS BLOB))) AS json FROM events`,
          )
          .get(STATUS_STREAM_PREFIX, `${STATUS_STREAM_PREFIX.slice(0, -1)}.`) as { events: number; statuses: number; json: number };
        const pages = db.pragma('page_count', { simple: true }) as number;
        const pageSize = db.pragma('page_size', { simple: true }) as number;
        return {
          events: row.events,
          statusEvents: row.statuses,
          jsonMb: mb(row.json),
          storeMb: mb(pages * pageSize),
          logMb: mb(await dirBytes(path.join(dir, 'blobs', 'named', CI_LOG_SPACE))),
        };
      } finally {
        db.close();
      }
    },
    close: async () => {
      await events.close();
      await blobs.close();
      await removeTempDir(dir);
    },
  };
};

const postgresTarget = async (): Promise<Target> => {
  const url = process.env.RAILYARD_TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL;
  const schema = `bench_retention_${randomUUID().slice(0, 8)}`;
  const events = await PostgresEventStore.open({ url, schema, now });
  const blobs = await PostgresBlobStore.open({ url, schema });
  const sql = new Client({ connectionString: url });
  await sql.connect();
  return {
    events,
    blobs,
    measure: async () => {
      // VACUUM FULL so the sizes are what the rows now need, not what autovacuum has reclaimed yet.
      await sql.query(`VACUUM FULL "${schema}".events`);
      await sql.query(`VACUUM FULL "${schema}".named_blobs`);
      const { rows } = await sql.query<{ events: string; statuses: string; json: string; store: string; logs: string }>(
        `SELECT count(*)::text AS events, count(*) FILTER (WHERE starts_with(stream_id, $1))::text AS statuses,
                sum(octet_length(data::text) + octet_length(metadata::text))::text AS json,
                pg_total_relation_size('"${schema}".events')::text AS store,
                (SELECT coalesce(sum(octet_length(bytes)), 0) FROM "${schema}".named_blobs)::text AS logs
           FROM "${schema}".events`,
        [STATUS_STREAM_PREFIX],
      );
      const r = rows[0] as { events: string; statuses: string; json: string; store: string; logs: string };
      return {
        events: Number(r.events),
        statusEvents: Number(r.statuses),
        jsonMb: mb(Number(r.json)),
        storeMb: mb(Number(r.store)),
        logMb: mb(Number(r.logs)),
      };
    },
    close: async () => {
      await events.close();
      await blobs.close();
      await sql.query(`DROP SCHEMA "${schema}" CASCADE`);
      await sql.end();
    },
  };
};

const dirBytes = async (dir: string): Promise<number> => {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const e of entries) if (e.isFile()) total += (await stat(path.join(e.parentPath, e.name))).size;
  return total;
};

const status = (repo: RepoRef, sha: string, context: string, state: string, at: string): NewEvent => ({
  eventId: randomUUID(),
  type: COMMIT_STATUS_REPORTED,
  data: { repo, sha, context, state, targetUrl: `https://ci.bench/${sha}/${context}`, reporter: 'railyard-ci' },
  metadata: { schemaVersion: 1, actor: 'ci', correlationId: randomUUID(), at, writer: 'bench' },
});

/** The commit statuses and logs the local CI would have written beside one append of queue events. */
const sideEffects = (a: WorkloadAppend, runs: Map<string, { repo: RepoRef; sha: string }>) => {
  const statuses: { stream: string; event: NewEvent }[] = [];
  const logs: string[] = [];
  for (const e of a.events) {
    const data = e.data as { testRunId?: string; testBranchSha?: string; context?: string; state?: string; repo?: RepoRef };
    const at = e.metadata.at;
    if (e.type === 'TestRunStarted' && data.testRunId && data.testBranchSha) {
      const { repo } = parseQueueId(a.streamId.slice(QUEUE_STREAM_PREFIX.length));
      runs.set(data.testRunId, { repo, sha: data.testBranchSha });
      for (const state of ['pending', 'success'])
        statuses.push({ stream: statusStreamOf(repo, data.testBranchSha), event: status(repo, data.testBranchSha, 'ci/lint', state, at) });
      logs.push(`${CI_LOG_SPACE}/${data.testRunId}/ci%2Flint.log`);
    }
    const run = data.testRunId ? runs.get(data.testRunId) : undefined;
    if (e.type === 'TestRunStatusReported' && run && data.context && data.state) {
      statuses.push({ stream: statusStreamOf(run.repo, run.sha), event: status(run.repo, run.sha, data.context, data.state, at) });
      if (data.state !== 'pending') logs.push(`${CI_LOG_SPACE}/${data.testRunId}/${encodeURIComponent(data.context)}.log`);
    }
  }
  return { statuses, logs };
};

const seed = async (target: Target, events: number, days: number, logKiB: number): Promise<{ end: number; logsCutoff: Date }> => {
  const first = workload({ events });
  let last = 0;
  let start = 0;
  for (const a of first) {
    const t = Date.parse(a.events[0]?.metadata.at ?? '');
    if (start === 0) start = t;
    last = Date.parse(a.events.at(-1)?.metadata.at ?? '');
  }
  const stretch = (days * DAY) / Math.max(1, last - start);
  const end = start + days * DAY;
  const cutoff = end - RETENTION_DAYS * DAY;
  const runs = new Map<string, { repo: RepoRef; sha: string }>();
  const log = Buffer.alloc(logKiB * 1024, 'x\n');
  // Blob stores take no clock: the real instant the history crosses the cutoff stands for it.
  let logsCutoff: Date | null = null;
  let n = 0;
  for (const a of workload({ events })) {
    clock.at = start + (Date.parse(a.events[0]?.metadata.at ?? '') - start) * stretch;
    if (logsCutoff === null && clock.at >= cutoff) {
      await new Promise((r) => setTimeout(r, 5));
      logsCutoff = new Date();
      await new Promise((r) => setTimeout(r, 5));
    }
    await target.events.append(a.streamId, a.events, a.expected);
    const { statuses, logs } = sideEffects(a, runs);
    await Promise.all(statuses.map((s) => target.events.append(s.stream, [s.event], 'any')));
    await Promise.all(logs.map((name) => target.blobs.putNamed(name, log)));
    if (++n % 10_000 === 0) progress(`${n} appends`);
  }
  return { end, logsCutoff: logsCutoff ?? new Date() };
};

export async function* run(args: string[] = []): AsyncIterable<object> {
  const stores = ['sqlite', 'postgres'].filter((s) => !args.some((a) => a === 'sqlite' || a === 'postgres') || args.includes(s));
  const [events = 100_000, days = 90, logKiB = 16] = args.filter((a) => /^\d+$/.test(a)).map(Number);
  for (const store of stores) {
    progress(`${store}: seeding ${events} queue events over ${days} days`);
    const target = store === 'sqlite' ? await sqliteTarget() : await postgresTarget();
    try {
      const { end, logsCutoff } = await seed(target, events, days, logKiB);
      const before = await target.measure();
      const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number }> => {
        const cpu = process.cpuUsage();
        const started = performance.now();
        const value = await work();
        const used = process.cpuUsage(cpu);
        return { value, ms: round(performance.now() - started, 0), cpuMs: round((used.user + used.system) / 1000, 0) };
      };
      const statuses = await timed(async () => {
        let dropped = 0;
        let after: string | undefined;
        do {
          const d = await target.events.dropStreamsBefore(
            STATUS_STREAM_PREFIX,
            new Date(end - RETENTION_DAYS * DAY),
            after ? { after } : {},
          );
          dropped += d.streams;
          after = d.next ?? undefined;
        } while (after !== undefined);
        return dropped;
      });
      const logs = await timed(() => target.blobs.expireNamed(CI_LOG_SPACE, logsCutoff, EXPIRED_LOG_NOTE));
      const afterSweep = await target.measure();
      yield {
        name: `retention/${store}`,
        load: round(loadavg()[0] ?? 0),
        queueEvents: events,
        days,
        retentionDays: RETENTION_DAYS,
        before,
        after: afterSweep,
        droppedStreams: statuses.value,
        statusSweepMs: statuses.ms,
        statusSweepCpuMs: statuses.cpuMs,
        expiredLogs: logs.value.blobs,
        logSweepMs: logs.ms,
        logSweepCpuMs: logs.cpuMs,
      };
    } finally {
      await target.close();
    }
  }
}

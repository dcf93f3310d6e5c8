import type { RecordedEvent } from '@railyard/eventstore';
import { casesOf, isTestHealthEvent, type CiRunRecorded, type PageCursor, type TestResultsUploaded } from '@railyard/testhealth';
import type Redis from 'ioredis';
import { RedisCheckpoint } from '../../redis/checkpointed';
import { decodeRun, encodeRun, type RunEntry, type StoredTest, type TestDoc, type UploadMeta } from '../projection/docs';
import type { TestHealthStoreOptions } from '../memory/store';
import type { CiRun, ListedPage, TestHealthReadModels, TestHistory } from '../port';
import { foldTestEvent, foldUpload, testIdOfEvent, uploadMetaOf, type TestWrite } from '../projection/fold';
import { DEFAULT_MAX_RUNS_PER_TEST, DEFAULT_RETENTION_DAYS, historyOf } from '../projection/history';
import { idOfMember, indexOpsOf, memberOfKey, type IndexName } from '../projection/indexes';
import { encodePosition, POSITION_WIDTH, testHealthKeys, type TestHealthKeys } from './keys';
import { APPLY_TEST_HEALTH } from './scripts';

export interface RedisTestHealthStoreOptions extends TestHealthStoreOptions {
  /** A client to share (the caller closes it) or a URL (the store opens and closes its own). */
  redis: Redis | string;
  /** The read models' namespace: keys are `ry:{<namespace>}:th:…`. */
  namespace: string;
  pollMs?: number;
  /** Tests written per script call; bounds how long one call holds Redis. */
  chunkTests?: number;
}

const MGET_CHUNK = 1000;
const DAY_MS = 86_400_000;

class CheckpointMoved extends Error {}

/** Collects ops for APPLY_TEST_HEALTH, with every key passed in KEYS (cluster-safe). */
class ScriptBatch {
  keys: string[];
  args: string[];
  tests = 0;
  private index = new Map<string, string>();

  constructor(
    private readonly checkpointKey: string,
    readonly expected: string,
  ) {
    this.keys = [checkpointKey];
    this.args = [expected, ''];
  }

  ref(key: string): string {
    let i = this.index.get(key);
    if (i === undefined) {
      this.keys.push(key);
      i = String(this.keys.length);
      this.index.set(key, i);
    }
    return i;
  }

  push(...args: string[]): void {
    this.args.push(...args);
  }

  get empty(): boolean {
    return this.args.length === 2;
  }

  reset(): void {
    this.keys = [this.checkpointKey];
    this.args = [this.expected, ''];
    this.index = new Map();
    this.tests = 0;
  }
}

const parseStored = (value: string | null | undefined): StoredTest | null =>
  value ? { pos: BigInt(value.slice(0, POSITION_WIDTH)), doc: JSON.parse(value.slice(POSITION_WIDTH)) as TestDoc } : null;

/**
 * Test-health read models in Redis. A batch is folded in this process from documents read with
 * MGET, then written by APPLY_TEST_HEALTH in chunks; the last chunk moves the checkpoint. A chunk
 * finding the checkpoint moved (a second projector) abandons the batch, which is then folded again
 * from what Redis holds; per-test positions make the chunks already written harmless to repeat.
 */
export class RedisTestHealthStore implements TestHealthReadModels {
  readonly keys: TestHealthKeys;
  private readonly base: RedisCheckpoint;
  private readonly maxRuns: number;
  private readonly retentionMs: number;
  private readonly chunkTests: number;

  constructor(private readonly options: RedisTestHealthStoreOptions) {
    this.keys = testHealthKeys(options.namespace);
    this.base = new RedisCheckpoint({
      redis: options.redis,
      checkpointKey: this.keys.checkpoint,
      modelPatterns: this.keys.modelPatterns,
      pollMs: options.pollMs,
    });
    this.maxRuns = options.maxRunsPerTest ?? DEFAULT_MAX_RUNS_PER_TEST;
    this.retentionMs = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * DAY_MS;
    this.chunkTests = options.chunkTests ?? 1000;
  }

  apply(events: RecordedEvent[]): Promise<void> {
    return this.base.apply(
      events,
      `test-health read models ${this.options.namespace}`,
      async () => ({ stored: await this.base.redis.get(this.keys.checkpoint), values: undefined }),
      async (fresh, expected, next) => {
        try {
          await this.write(fresh, expected, next);
          return true;
        } catch (err) {
          if (err instanceof CheckpointMoved) return false;
          throw err;
        }
      },
    );
  }

  private async write(fresh: RecordedEvent[], expected: string, next: string): Promise<void> {
    const batch = new ScriptBatch(this.keys.checkpoint, expected);
    // Documents as this batch has left them so far, keyed by repo and test.
    const working = new Map<string, StoredTest | null>();
    const flush = async (final: boolean): Promise<void> => {
      if (batch.empty && !final) return;
      if (final) batch.args[1] = next;
      if ((await APPLY_TEST_HEALTH.run(this.base.redis, batch.keys, batch.args)) !== 1) throw new CheckpointMoved();
      batch.reset();
    };

    for (const event of fresh.filter(isTestHealthEvent)) {
      const repoId = event.streamId.slice('tests-'.length);
      const wkey = (id: string) => `${repoId}\u0000${id}`;
      if (event.type === 'TestResultsUploaded') {
        const data = event.data as TestResultsUploaded['data'];
        const cases = await casesOf(data.cases, (d) => this.options.blobs.get(d));
        await this.load(
          repoId,
          cases.map((c) => c.id).filter((id) => !working.has(wkey(id))),
          working,
        );
        const meta = uploadMetaOf(event.revision, data);
        batch.push('E', 'S', batch.ref(this.keys.repos), repoId);
        batch.push('H', batch.ref(this.keys.uploads(repoId)), String(event.revision), JSON.stringify(meta));
        batch.push('Z', batch.ref(this.keys.uploadTimes(repoId)), String(Date.parse(meta.at)), String(event.revision));
        batch.push(
          'P',
          batch.ref(this.keys.uploads(repoId)),
          batch.ref(this.keys.uploadTimes(repoId)),
          String(Date.parse(meta.at) - this.retentionMs),
        );
        for (const w of foldUpload(event, cases, (id) => working.get(wkey(id)) ?? null)) {
          working.set(wkey(w.after.id), { doc: w.after, pos: event.position });
          this.pushWrite(batch, repoId, w, event.position);
          if (batch.tests >= this.chunkTests) await flush(false);
        }
        continue;
      }
      if (event.type === 'CiRunRecorded') {
        const { repo: _repo, ...run } = event.data as CiRunRecorded['data'];
        batch.push('E', 'H', batch.ref(this.keys.ciRuns(repoId)), run.runId, JSON.stringify(run));
        continue;
      }
      const testId = testIdOfEvent(event);
      if (testId === undefined) continue;
      if (!working.has(wkey(testId))) await this.load(repoId, [testId], working);
      const current = working.get(wkey(testId)) ?? null;
      const after = foldTestEvent(current, event);
      if (!after || !current) continue;
      working.set(wkey(testId), { doc: after, pos: event.position });
      this.pushWrite(batch, repoId, { before: current.doc, after }, event.position);
      if (batch.tests >= this.chunkTests) await flush(false);
    }
    await flush(true);
  }

  private pushWrite(batch: ScriptBatch, repoId: string, w: TestWrite, position: bigint): void {
    const id = w.after.id;
    batch.tests += 1;
    batch.push('T', batch.ref(this.keys.test(repoId, id)), encodePosition(position), JSON.stringify(w.after));
    if (w.run) batch.push('L', batch.ref(this.keys.runs(repoId, id)), encodeRun(w.run), String(this.maxRuns));
    for (const op of indexOpsOf(w.before, w.after)) {
      const key = batch.ref(this.keys.index(repoId, op.index));
      if (op.op === 'add') batch.push('Z', key, '0', op.member);
      else batch.push('R', key, op.member);
    }
    if (w.after.lastFailedAt !== null && w.after.lastFailedAt !== w.before?.lastFailedAt) {
      batch.push('Z', batch.ref(this.keys.failures(repoId)), String(Date.parse(w.after.lastFailedAt)), id);
    }
  }

  private async load(repoId: string, ids: readonly string[], into: Map<string, StoredTest | null>): Promise<void> {
    for (let i = 0; i < ids.length; i += MGET_CHUNK) {
      const chunk = ids.slice(i, i + MGET_CHUNK);
      const values = await this.base.redis.mget(...chunk.map((id) => this.keys.test(repoId, id)));
      chunk.forEach((id, j) => into.set(`${repoId}\u0000${id}`, parseStored(values[j])));
    }
  }

  checkpoint(): Promise<bigint | null> {
    return this.base.checkpoint();
  }

  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    return this.base.waitFor(position, timeoutMs);
  }

  async getCiRun(repoId: string, runId: string): Promise<CiRun | null> {
    const json = await this.base.redis.hget(this.keys.ciRuns(repoId), runId);
    return json ? (JSON.parse(json) as CiRun) : null;
  }

  async getTest(repoId: string, testId: string): Promise<TestDoc | null> {
    return parseStored(await this.base.redis.get(this.keys.test(repoId, testId)))?.doc ?? null;
  }

  async getTests(repoId: string, testIds: readonly string[]): Promise<(TestDoc | null)[]> {
    const out: (TestDoc | null)[] = [];
    for (let i = 0; i < testIds.length; i += MGET_CHUNK) {
      const chunk = testIds.slice(i, i + MGET_CHUNK);
      if (chunk.length === 0) continue;
      const values = await this.base.redis.mget(...chunk.map((id) => this.keys.test(repoId, id)));
      out.push(...values.map((v) => parseStored(v)?.doc ?? null));
    }
    return out;
  }

  async getHistories(repoId: string, testIds: readonly string[]): Promise<TestHistory[]> {
    if (testIds.length === 0) return [];
    const pipeline = this.base.redis.pipeline();
    for (const id of testIds) pipeline.lrange(this.keys.runs(repoId, id), '0', '-1');
    const results = (await pipeline.exec()) ?? [];
    const runsPerTest: RunEntry[][] = results.map(([err, value]) => {
      if (err) throw err;
      return (value as string[]).map(decodeRun).filter((r): r is RunEntry => r !== null);
    });
    const revisions = [...new Set(runsPerTest.flatMap((runs) => runs.map((r) => r.revision)))];
    const uploads = new Map<number, UploadMeta>();
    for (let i = 0; i < revisions.length; i += MGET_CHUNK) {
      const chunk = revisions.slice(i, i + MGET_CHUNK);
      const metas = await this.base.redis.hmget(this.keys.uploads(repoId), ...chunk.map(String));
      chunk.forEach((revision, j) => {
        const json = metas[j];
        if (json) uploads.set(revision, JSON.parse(json) as UploadMeta);
      });
    }
    return runsPerTest.map((runs) => ({
      runs: historyOf(runs, uploads),
      revision: runs.reduce((max, r) => Math.max(max, r.revision), -1),
    }));
  }

  async listPage(repoId: string, index: IndexName, size: number, cursor?: PageCursor): Promise<ListedPage> {
    const key = this.keys.index(repoId, index);
    const member = cursor && cursor.kind !== 'last' ? memberOfKey(index, cursor.key) : null;
    let members: string[];
    let total: number;
    let start: number;
    // One MULTI per page: the count and the rows come from the same instant.
    if (cursor?.kind === 'after' && member !== null) {
      const [card, below, rows] = await this.exec(
        this.base.redis
          .multi()
          .zcard(key)
          .zlexcount(key, '-', `[${member}`)
          .zrangebylex(key, `(${member}`, '+', 'LIMIT', '0', String(size)),
      );
      [total, start, members] = [card as number, below as number, rows as string[]];
    } else if (cursor?.kind === 'before' && member !== null) {
      const [card, below, rows, first] = await this.exec(
        this.base.redis
          .multi()
          .zcard(key)
          .zlexcount(key, '-', `(${member}`)
          .zrevrangebylex(key, `(${member}`, '-', 'LIMIT', '0', String(size))
          .zrange(key, '0', String(size - 1)),
      );
      total = card as number;
      const preceding = below as number;
      if (preceding < size) [start, members] = [0, first as string[]];
      else [start, members] = [preceding - size, (rows as string[]).reverse()];
    } else if (cursor?.kind === 'last') {
      total = await this.base.redis.zcard(key);
      start = total === 0 ? 0 : total - (total % size || size);
      members = await this.base.redis.zrange(key, String(start), String(start + size - 1));
    } else {
      const [card, rows] = await this.exec(
        this.base.redis
          .multi()
          .zcard(key)
          .zrange(key, '0', String(size - 1)),
      );
      [total, start, members] = [card as number, 0, rows as string[]];
    }
    const docs = await this.getTests(repoId, members.map(idOfMember));
    return { rows: docs.filter((d): d is TestDoc => d !== null), totalRows: total, start };
  }

  private async exec(multi: ReturnType<Redis['multi']>): Promise<unknown[]> {
    const results = (await multi.exec()) ?? [];
    return results.map(([err, value]) => {
      if (err) throw err;
      return value;
    });
  }

  async watchList(repoId: string, failedSince: string): Promise<string[]> {
    const [failing, flaky, broken] = await this.exec(
      this.base.redis
        .multi()
        .zrangebyscore(this.keys.failures(repoId), String(Date.parse(failedSince)), '+inf')
        .zrange(this.keys.index(repoId, 'flaky'), '0', '-1')
        .zrange(this.keys.index(repoId, 'broken'), '0', '-1'),
    );
    return [...new Set([...(failing as string[]), ...(flaky as string[]).map(idOfMember), ...(broken as string[]).map(idOfMember)])];
  }

  async repoIds(): Promise<string[]> {
    return this.base.redis.smembers(this.keys.repos);
  }

  reset(): Promise<void> {
    return this.base.reset();
  }

  close(): Promise<void> {
    return this.base.close();
  }
}

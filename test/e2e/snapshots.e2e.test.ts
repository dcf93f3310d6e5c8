import path from 'node:path';
import Database from 'better-sqlite3';
import { eventually } from '@railyard/testkit';
import { client } from './support/client';
import { startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(240_000);

let world: World;
let server: RunningProcess | undefined;

// A snapshot after every event: the server writes them all the time, so a kill lands among them.
const env = (): NodeJS.ProcessEnv => ({ ...world.env, RAILYARD_SNAPSHOT_EVERY_EVENTS: '1' });

const withDb = <T>(file: string, read: (db: Database.Database) => T): T => {
  const db = new Database(path.join(world.dataDir, file), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
};
const withDbIfAny = <T>(file: string, read: (db: Database.Database) => Map<string, T>): Map<string, T> => {
  try {
    return withDb(file, read);
  } catch {
    return new Map();
  }
};
const head = (): bigint =>
  withDb('events.sqlite', (db) => BigInt((db.prepare('SELECT max(global_position) AS p FROM events').get() as { p: number }).p));
const snapshotPositions = (): Map<string, bigint> =>
  withDbIfAny('read-models.sqlite', (db) => {
    const rows = db.prepare('SELECT name, position FROM snapshots').all() as { name: string; position: string }[];
    return new Map(rows.map((r) => [r.name, BigInt(r.position)]));
  });

/** The read models' start lines the server logged: how each model started. */
const starts = (p: RunningProcess): string[] =>
  p
    .output()
    .split('\n')
    .filter((l) => l.includes('"read model start"'))
    .map((l) => (JSON.parse(l) as { model: string; from: string }).from);

beforeAll(async () => {
  world = await makeWorld();
  for (let n = 1; n <= 20; n++) await world.openFeaturePr(n);
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('read-model snapshots (D252)', () => {
  it('when the server is killed with -9 while it writes snapshots, then it resumes from one and every acknowledged submission is there', async () => {
    server = await startProcess('apps/server/src/main.ts', env());
    expect((await client(server.url, TOKENS.admin).createQueue()).status).toBe(200);
    const ci = client(server.url, TOKENS.write);
    const acked = new Map<number, string>();
    for (let n = 1; n <= 10; n++) {
      const res = await ci.submit(n);
      expect(res.status).toBe(200);
      acked.set(n, res.body.id as string);
    }
    const covered = head();
    await eventually(
      () => {
        const at = snapshotPositions();
        return at.size === 3 && [...at.values()].every((position) => position >= covered);
      },
      'snapshots of the three models covering the first submissions',
      60_000,
    );
    // More submissions, and the kill right after: whatever the last snapshot holds, the tail has the rest.
    for (let n = 11; n <= 15; n++) {
      const res = await ci.submit(n);
      if (res.status === 200) acked.set(n, res.body.id as string);
    }
    await server.kill9();

    server = await startProcess('apps/server/src/main.ts', env());
    expect(starts(server)).toEqual(['resumed', 'resumed', 'resumed']);
    const after = client(server.url, TOKENS.read);
    for (const [n, id] of acked) expect((await after.getPr(n)).body).toMatchObject({ id, prNumber: n, state: 'pending' });
    const listed = (await after.getQueue()).body.enqueuedPullRequests.map((p: { number: number }) => p.number) as number[];
    expect([...listed].sort((a, b) => a - b)).toEqual([...acked.keys()].sort((a, b) => a - b));
  });

  it('when ended PRs were paged out of memory and the server is killed with -9, then they are read back exactly (D320)', async () => {
    const ci = client(server?.url ?? '', TOKENS.write);
    for (let n = 1; n <= 5; n++) expect((await ci.cancel(n)).status).toBe(200);
    const covered = head();
    const pagedPrs = (): Map<string, number> =>
      withDbIfAny('read-models.sqlite', (db) => {
        const rows = db.prepare("SELECT num FROM paged WHERE model = 'queue' AND kind = 'pr'").all() as { num: number }[];
        return new Map(rows.map((r) => [String(r.num), r.num]));
      });
    await eventually(
      () => (snapshotPositions().get('queue') ?? 0n) >= covered && pagedPrs().size >= 5,
      'a snapshot that paged the cancelled PRs out',
      60_000,
    );
    const reader = client(server?.url ?? '', TOKENS.read);
    const before = await Promise.all([1, 2, 3, 4, 5, 6].map(async (n) => (await reader.getPr(n)).body as unknown));
    const queueBefore = (await reader.getQueue()).body as unknown;
    expect(before[0]).toMatchObject({ prNumber: 1, state: 'cancelled' });
    await server?.kill9();

    server = await startProcess('apps/server/src/main.ts', env());
    expect(starts(server)).toEqual(['resumed', 'resumed', 'resumed']);
    const after = client(server.url, TOKENS.read);
    expect(await Promise.all([1, 2, 3, 4, 5, 6].map(async (n) => (await after.getPr(n)).body as unknown))).toEqual(before);
    expect((await after.getQueue()).body).toEqual(queueBefore);
    // A PR read back from the file takes new events as one that stayed in memory would.
    expect((await client(server.url, TOKENS.write).submit(1)).status).toBe(200);
    expect((await after.getPr(1)).body).toMatchObject({ prNumber: 1, state: 'pending' });
  });

  it('when a snapshot was written by an older schema, then the model is rebuilt from the events, not read', async () => {
    await server?.stop();
    const db = new Database(path.join(world.dataDir, 'read-models.sqlite'));
    // An older schema and a body that is not the model's: read, it would fail or show nothing.
    db.prepare("UPDATE snapshots SET schema = 0, body = x'00' WHERE name = 'queue'").run();
    db.close();

    server = await startProcess('apps/server/src/main.ts', env());
    expect(starts(server)).toEqual(['older-schema', 'resumed', 'resumed']);
    const after = client(server.url, TOKENS.read);
    for (const n of [1, 6, 7, 8, 9, 10]) expect((await after.getPr(n)).body).toMatchObject({ prNumber: n, state: 'pending' });
    // Its paged-out documents went with the snapshot: the ended PRs come from the events again.
    for (let n = 2; n <= 5; n++) expect((await after.getPr(n)).body).toMatchObject({ prNumber: n, state: 'cancelled' });
  });
});

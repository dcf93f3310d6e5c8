import path from 'node:path';
import Database from 'better-sqlite3';
import {
  NO_FAIL_CHECK,
  TOKENS,
  checkMergeInvariants,
  client,
  configureCi,
  eventually,
  mainLog,
  makeWorld,
  openPrWithFile,
  queueEvents,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';

jest.setTimeout(600_000);

const PRS = Array.from({ length: 12 }, (_, i) => i + 1);
const TERMINAL = new Set(['PrMerged', 'PrFailed', 'PrCancelled']);
// A snapshot whenever the engine has handled any event: it writes them all the time, so a kill lands among them.
const ENV = { RAILYARD_SNAPSHOT_EVERY_EVENTS: '1' };

let world: World;
let server: RunningProcess | undefined;

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { tests: NO_FAIL_CHECK });
  for (const n of PRS) await openPrWithFile(world, n, `${n}\n`);
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

interface Head {
  position: string;
  event_id: string;
  queues: string;
}

const stateDb = (): Database.Database => new Database(path.join(world.dataDir, 'engine-state.sqlite'));
const engineHead = (): Head | undefined => {
  try {
    const db = stateDb();
    try {
      return db.prepare('SELECT position, event_id, queues FROM engine_head').get() as Head | undefined;
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
};

/** How the engine's state started, from the line the engine logs once it has read its snapshot (D292). */
const engineStart = (p: RunningProcess): Promise<{ why: string; streams: number }> =>
  eventually('the engine to start', async () =>
    p
      .output()
      .split('\n')
      .filter((l) => l.includes('"engine state start"'))
      .map((l) => JSON.parse(l) as { why: string; streams: number })
      .at(0),
  );

const ended = async (): Promise<Map<number, string>> => {
  const out = new Map<number, string>();
  for (const e of await queueEvents(world)) if (TERMINAL.has(e.type)) out.set(e.data.prNumber as number, e.type);
  return out;
};

const allEnd = (prs: number[]): Promise<true> =>
  eventually(
    `PRs ${prs.join(',')} to end`,
    async () => {
      const states = await ended();
      return prs.every((n) => states.has(n)) ? true : undefined;
    },
    300_000,
  );

describe('engine state snapshots (D292)', () => {
  it('when the server is killed with -9 while the engine writes snapshots, and its checkpoint is older than its states, then it resumes and every PR submitted before and after ends once', async () => {
    server = await startEmbedded(world, ENV);
    expect((await client(server.url, TOKENS.admin).createQueue({ concurrency: 2 })).status).toBe(200);
    const ci = client(server.url, TOKENS.write);
    for (const n of PRS.slice(0, 4)) expect((await ci.submit(n)).status).toBe(200);
    await allEnd(PRS.slice(0, 4));
    const early = await eventually('an engine snapshot', async () => engineHead());
    // Submitted, and the kill at once: runs are starting and the snapshot being written.
    for (const n of PRS.slice(4, 8)) expect((await ci.submit(n)).status).toBe(200);
    await eventually('a later engine snapshot', async () => (engineHead()?.position !== early.position ? true : undefined));
    await server.kill9();
    server = undefined;
    // A crash between the states' write and the checkpoint's: the states are newer than the head says.
    const db = stateDb();
    db.prepare('UPDATE engine_head SET position = ?, event_id = ?, queues = ?').run(early.position, early.event_id, early.queues);
    db.close();

    server = await startEmbedded(world, ENV);
    const start = await engineStart(server);
    expect(start.why).toBe('resumed');
    expect(start.streams).toBeGreaterThan(0);
    const after = client(server.url, TOKENS.write);
    for (const n of PRS.slice(8)) expect((await after.submit(n)).status).toBe(200);
    await allEnd(PRS);

    const states = await ended();
    for (const n of PRS) expect([n, states.get(n)]).toEqual([n, 'PrMerged']);
    const log = mainLog(world);
    for (const n of PRS) expect(log.filter((s) => s === `PR ${n} (#${n})`)).toHaveLength(1);
    checkMergeInvariants(await queueEvents(world), world);
  });

  it('when the saved states are of an older schema, then they are folded again from the log and the queue still merges', async () => {
    await server?.stop();
    server = undefined;
    await openPrWithFile(world, 13, '13\n');
    const db = stateDb();
    // A body that still reads as a state, under an older schema: it must be folded again, not taken.
    db.prepare('UPDATE engine_streams SET schema = 0').run();
    db.close();

    server = await startEmbedded(world, ENV);
    expect(await engineStart(server)).toMatchObject({ why: 'resumed', streams: 0, olderStreams: 1 });
    expect((await client(server.url, TOKENS.write).submit(13)).status).toBe(200);
    await allEnd([13]);
    expect((await ended()).get(13)).toBe('PrMerged');
  });
});

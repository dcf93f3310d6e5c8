import {
  NO_FAIL_CHECK,
  TOKENS,
  checkMergeInvariants,
  client,
  configureCi,
  eventually,
  filesOnMain,
  mainLog,
  makeWorld,
  openPrWithFile,
  queueEvents,
  sleep,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';

jest.setTimeout(600_000);

const PRS = Array.from({ length: 32 }, (_, i) => i + 1);
// Each kill costs a server start (seconds of CPU) for 0.2-1.5 s of engine time. 20 kills of 32 PRs at
// concurrency 4 still land while runs are starting, testing and merging (the queue never empties
// before the last kill), each followed by a recovery; 40 doubled the file's time for more of the same
// moments (docs/benchmarks.md, "Test suite time").
const KILLS = 20;
const CULPRITS = new Set([7, 19, 26]);
const TERMINAL = new Set(['PrMerged', 'PrFailed', 'PrCancelled']);

let world: World;
let server: RunningProcess | undefined;

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { tests: `sleep 0.2; ${NO_FAIL_CHECK}` });
  for (const n of PRS) await openPrWithFile(world, n, CULPRITS.has(n) ? 'FAIL\n' : `${n}\n`);
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

/** Each PR's last terminal event, read from the log itself: the API's read models are rebuilt per start. */
const terminalStates = async (): Promise<Map<number, string>> => {
  const out = new Map<number, string>();
  for (const e of await queueEvents(world)) if (TERMINAL.has(e.type)) out.set(e.data.prNumber as number, e.type);
  return out;
};

describe('crash safety of the merge engine', () => {
  it('when the embedded server is killed with -9 at random moments until the queue empties, then no PR is lost or merged twice and every merge holds a tested tree', async () => {
    server = await startEmbedded(world);
    expect((await client(server.url, TOKENS.admin).createQueue({ concurrency: 4 })).status).toBe(200);
    const ci = client(server.url, TOKENS.write);
    for (const n of PRS) expect((await ci.submit(n)).status).toBe(200);

    // A fixed seed keeps a failure reproducible: the kill moments are the same every run.
    let seed = 20250601;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let kills = 0;
    const started = Date.now();
    while (kills < KILLS && (await terminalStates()).size < PRS.length) {
      server ??= await startEmbedded(world);
      await sleep(200 + Math.floor(random() * 1300));
      await server.kill9();
      server = undefined;
      kills++;
    }
    // The kills are over: a server that stays up must bring every PR to its end, however slow the machine.
    server ??= await startEmbedded(world);
    const upAgain = Date.now();
    const ended = async () => (await terminalStates()).size;
    await eventually(
      'every PR to reach an end after the last kill',
      async () => ((await ended()) === PRS.length ? true : undefined),
      300_000,
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}: ${await ended()} of ${PRS.length} PRs ended, ${kills} kills`);
    });
    // On a loaded machine this test is slow; the split says whether the kills or the recovery took the time.
    process.stdout.write(
      `engine crash e2e: ${kills} kills in ${upAgain - started} ms, then every PR ended in ${Date.now() - upAgain} ms\n`,
    );
    await sleep(1500);

    const events = await queueEvents(world);
    const states = await terminalStates();
    expect(kills).toBeGreaterThanOrEqual(3);
    // No PR lost: every one reached an end, the culprits failed and only they did.
    expect([...states.keys()].sort((a, b) => a - b)).toEqual(PRS);
    for (const n of PRS) expect([n, states.get(n)]).toEqual([n, CULPRITS.has(n) ? 'PrFailed' : 'PrMerged']);
    // None merged twice, in the log or in git.
    const log = mainLog(world);
    for (const n of PRS) expect(log.filter((s) => s === `PR ${n} (#${n})`)).toHaveLength(CULPRITS.has(n) ? 0 : 1);
    // No untested tree merged.
    checkMergeInvariants(events, world);
    expect(filesOnMain(world).filter((f) => /^f\d+\.txt$/.test(f)).length).toBe(PRS.length - CULPRITS.size);
    // Every engine event was written by the engine, and no test branch outlived its run.
    expect(events.filter((e) => e.type === 'TestRunStarted').every((e) => e.actor === 'engine')).toBe(true);
  });
});

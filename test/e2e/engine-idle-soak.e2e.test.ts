import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { TOKENS, client, makeWorld, sleep, startEmbedded, type RunningProcess, type World } from './support/engine-world';

jest.setTimeout(180_000);

const QUEUES = 35;
// The soak is counted in engine ticks, not seconds: 60 ticks and two verify passes, as a minute at
// the production defaults (1 s tick, 30 s verify) would hold, at a tenth of the wall time.
const TICK_MS = 100;
const VERIFY_MS = 3000;
const SOAK_TICKS = 60;

let world: World;
let server: RunningProcess;
let counted: string;

const gitSpawns = (): number => {
  try {
    return readFileSync(counted, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

beforeAll(async () => {
  world = await makeWorld();
  // A git first on the server's PATH that counts every run, then hands over to the real one.
  const bin = path.join(world.dataDir, 'counting-bin');
  counted = path.join(world.dataDir, 'git-spawns');
  mkdirSync(bin);
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$1" >> '${counted}'\nexec '${realGit}' "$@"\n`);
  chmodSync(path.join(bin, 'git'), 0o755);
  server = await startEmbedded(world, {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    RAILYARD_ENGINE_TICK_MS: String(TICK_MS),
    RAILYARD_ENGINE_VERIFY_MS: String(VERIFY_MS),
  });
  const admin = client(server.url, TOKENS.admin);
  for (let i = 0; i < QUEUES; i++) {
    const branch = `idle-${i}`;
    await world.createBranch(branch);
    expect((await admin.createQueue({}, branch)).status).toBe(200);
  }
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('idle queues', () => {
  it(`when ${QUEUES} queues sit idle for ${SOAK_TICKS} engine ticks and two verify passes, then the engine spawns fewer git processes than ticks in all`, async () => {
    // Each queue's first pass reads its target once (a tree lookup); what counts is what idling costs after that.
    await sleep(3000);
    const before = gitSpawns();
    await sleep(SOAK_TICKS * TICK_MS);
    const spawned = gitSpawns() - before;
    expect(spawned).toBeLessThan(SOAK_TICKS);
  });
});

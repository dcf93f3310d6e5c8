import { readFileSync } from 'node:fs';
import path from 'node:path';
import { client } from './support/client';
import { startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

// One embedded server per data dir (docs/operations.md): real server processes on one data dir.

jest.setTimeout(120_000);

const SERVER = 'apps/server/src/main.ts';
let world: World;
const running: RunningProcess[] = [];
const start = async (env: Record<string, string> = {}): Promise<RunningProcess> => {
  const server = await startProcess(SERVER, { ...world.env, RAILYARD_ENGINE: 'on', ...env });
  running.push(server);
  return server;
};

beforeAll(async () => {
  world = await makeWorld();
});
afterAll(async () => {
  for (const server of running) await server.stop();
  await world?.cleanup();
});

describe('one server per data dir', () => {
  it('when a second server starts on a data dir in use, then it exits with one error naming the holder, and the first keeps serving', async () => {
    const first = await start();
    const refused = startProcess(SERVER, { ...world.env, RAILYARD_ENGINE: 'on', PORT: '0' });
    const error = await refused.then(
      (started) => {
        running.push(started);
        return null;
      },
      (err: Error) => err.message,
    );
    expect(error).toMatch(
      new RegExp(
        `in use by another Railyard server \\(pid ${first.proc.pid}, port ${first.port}, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)`,
      ),
    );
    // It stopped before starting anything of its own: no engine, no listening port.
    const stdout = error?.split('\nstderr:')[0] ?? '';
    expect(stdout).not.toMatch(/"message":"(engine|railyard listening)/);
    expect((await client(first.url, TOKENS.admin).createQueue()).status).toBe(200);
    await first.stop();
  });

  it('when the holder is killed with kill -9, then the next server starts on the same data dir', async () => {
    const holder = await start();
    await holder.kill9();
    const next = await start();
    const note = JSON.parse(readFileSync(path.join(world.dataDir, 'server.lock.json'), 'utf8')) as { pid: number; port: number };
    expect(note).toMatchObject({ pid: next.proc.pid, port: next.port });
    expect((await client(next.url, TOKENS.admin).getQueue()).status).toBe(200);
  });
});

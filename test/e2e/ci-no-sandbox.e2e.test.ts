import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { compiled, ROOT, startProcess } from './support/processes';
import { makeWorld, type World } from './support/world';

/**
 * Issue 25, item 4: on a machine where neither bubblewrap nor util-linux `unshare` can sandbox a check,
 * the local CI must not start and leave every check to report CI_SANDBOX_UNAVAILABLE and its PR stuck:
 * the server refuses to start with one line saying what to install, unless the sandbox is turned off.
 * The server runs with a PATH holding every program of /usr/bin but those two, which is where the
 * sandbox probe looks for them (the checks' PATH).
 */
jest.setTimeout(120_000);

let tmp: string;
let bin: string;
let world: World;

beforeAll(async () => {
  tmp = await makeTempDir('railyard-nosandbox-');
  bin = path.join(tmp, 'bin');
  await fs.mkdir(bin);
  for (const name of await fs.readdir('/usr/bin'))
    if (name !== 'bwrap' && name !== 'unshare') await fs.symlink(path.join('/usr/bin', name), path.join(bin, name));
  world = await makeWorld();
});

afterAll(async () => {
  await world?.cleanup();
  if (tmp) await removeTempDir(tmp);
});

/** Runs the server to its end; it must end by itself (a server that started is stopped by the timeout as a failure). */
const runToExit = (env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [compiled('apps/server/src/main.ts')], {
      cwd: ROOT,
      env: { ...process.env, JEST_WORKER_ID: '', RAILYARD_LOG_LEVEL: 'info', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`the server did not refuse to start\n${out}`));
    }, 60_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });

describe('a server whose checks cannot be sandboxed (issue 25)', () => {
  it('when neither bwrap nor unshare is on the PATH, then the server with the local CI refuses to start, with one line naming what to install', async () => {
    const { code, out } = await runToExit({ ...world.env, RAILYARD_ENGINE: 'on', PATH: bin });
    expect(code).toBe(1);
    const lines = out.split('\n').filter((l) => l.includes('apt-get install bubblewrap'));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    const line = lines[0] as string;
    expect(JSON.parse(line)).toMatchObject({ level: 'error' });
    expect(line).toMatch(/bubblewrap \(bwrap\) is not installed; util-linux unshare is not installed/);
    // Nothing was tested or left half done: no check was started for anything.
    expect(out).not.toMatch(/CI_SANDBOX_UNAVAILABLE/);
  });

  it('when the sandbox is turned off by its setting, then the same server starts (and warns)', async () => {
    const server = await startProcess('apps/server/src/main.ts', {
      ...world.env,
      RAILYARD_ENGINE: 'on',
      PATH: bin,
      RAILYARD_CI_SANDBOX: 'off',
    });
    try {
      expect(server.output()).not.toMatch(/apt-get install bubblewrap/);
      const res = await fetch(`${server.url}/healthz`);
      expect(res.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

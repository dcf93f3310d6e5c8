import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { checkArgv, startCheck } from './check-process';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(() => removeTempDir(dir));

const run = async (argv: string[]) => {
  const log = await fs.open(path.join(dir, 'log'), 'w');
  try {
    const proc = await startCheck({ argv, cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, logFd: log.fd });
    return await proc.exited;
  } finally {
    await log.close();
  }
};

describe('startCheck', () => {
  it('when the command runs and fails, then its exit code is reported as started and both its outputs are in the log', async () => {
    expect(await run(checkArgv('echo out; echo err >&2; exit 3'))).toEqual({ code: 3, signal: null, started: true });
    expect(await fs.readFile(path.join(dir, 'log'), 'utf8')).toBe('out\nerr\n');
  });

  it('when what wraps the command exits before reaching it, then the exit is reported as not started', async () => {
    // What a sandbox that cannot mount does: exit 1 without ever running the command.
    expect(await run(['bash', '-c', 'echo "bwrap: cannot mount" >&2; exit 1'])).toEqual({ code: 1, signal: null, started: false });
    expect(await fs.readFile(path.join(dir, 'log'), 'utf8')).toBe('bwrap: cannot mount\n');
  });

  it('when the command runs, then it holds no descriptor but its standard ones: not the started pipe, not the watchdog’s', async () => {
    await run(checkArgv('ls -l /proc/self/fd/ > fds; exit 0'));
    const fds = (await fs.readFile(path.join(dir, 'fds'), 'utf8'))
      .split('\n')
      .map((l) => / (\d+) -> (.*)$/.exec(l))
      .filter((m) => m !== null && !m[2]?.startsWith('/proc/'))
      .map((m) => Number(m?.[1]));
    expect(fds.sort()).toEqual([0, 1, 2]);
  });
});

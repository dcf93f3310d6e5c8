import { existsSync, promises as fs } from 'node:fs';
import { getPriority } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { checkArgv, startCheck } from './check-process';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(() => removeTempDir(dir));

const run = async (argv: string[], cgroupProcs?: string) => {
  const log = await fs.open(path.join(dir, 'log'), 'w');
  try {
    const proc = await startCheck({
      argv,
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      logFd: log.fd,
      ...(cgroupProcs ? { cgroupProcs } : {}),
    });
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

  it('when the check has rlimits, then its command runs under them', async () => {
    await run(checkArgv('echo "$(ulimit -u) $(ulimit -d) $(ulimit -f)" > limits', { processes: 77, dataKib: 262144, fileKib: 16384 }));
    expect(await fs.readFile(path.join(dir, 'limits'), 'utf8')).toBe('77 262144 16384\n');
  });

  it('when the check has a cgroup, then the wrapper joins it before anything runs; one it cannot join means not started', async () => {
    // A plain file stands in for cgroup.procs: what the wrapper writes there is its own pid.
    const procs = path.join(dir, 'cgroup.procs');
    await fs.writeFile(procs, '');
    expect(await run(checkArgv('exit 0'), procs)).toEqual({ code: 0, signal: null, started: true });
    expect(Number(await fs.readFile(procs, 'utf8'))).toBeGreaterThan(1);
    expect(await run(checkArgv('exit 0'), path.join(dir, 'no-such-group', 'cgroup.procs'))).toEqual({
      code: 125,
      signal: null,
      started: false,
    });
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

/**
 * Starts a check from a worker thread made `by` nicer (Linux keeps niceness per thread, and the
 * engine thread starts checks this way: apps/server's engine-thread/niceness.ts); the check writes
 * its own niceness and its session's scheduling group into files.
 */
const checkFromNicerThread = (workDir: string, by: number): Promise<void> => {
  const source = `
    require(${JSON.stringify(require.resolve('tsx/cjs'))});
    const { readlinkSync, openSync, closeSync } = require('node:fs');
    const { getPriority, setPriority } = require('node:os');
    const { parentPort, workerData } = require('node:worker_threads');
    const { checkArgv, startCheck } = require(${JSON.stringify(path.join(__dirname, 'check-process.ts'))});
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (workerData.by > 0) setPriority(tid, Math.min(19, getPriority(tid) + workerData.by));
    const logFd = openSync(workerData.dir + '/log', 'w');
    startCheck({ argv: checkArgv('nice > niceness; cat /proc/self/autogroup > autogroup'), cwd: workerData.dir, env: { PATH: process.env.PATH }, logFd })
      .then((p) => p.exited)
      .then((exit) => { closeSync(logFd); parentPort.postMessage(exit); });
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { dir: workDir, by } });
    worker.once('message', (exit: { code: number | null }) => {
      void worker.terminate();
      if (exit.code === 0) resolve();
      else reject(new Error(`the check exited ${String(exit.code)}`));
    });
    worker.once('error', reject);
  });
};

const autogroups = existsSync('/proc/self/autogroup');
if (!autogroups) console.log('SKIPPED check-process autogroup tests: this kernel has no /proc/self/autogroup');
(autogroups ? describe : describe.skip)('startCheck from a nicer thread, where the kernel schedules sessions as groups', () => {
  it('when the thread that starts the check is 5 nicer, then the check and its session’s group are 5 nicer', async () => {
    const nicer = Math.min(19, getPriority() + 5);
    await checkFromNicerThread(dir, 5);
    expect((await fs.readFile(path.join(dir, 'niceness'), 'utf8')).trim()).toBe(String(nicer));
    expect(await fs.readFile(path.join(dir, 'autogroup'), 'utf8')).toMatch(new RegExp(`^/autogroup-\\d+ nice ${nicer}\n$`));
  });

  it('when the thread that starts the check is not nicer, then its session’s group has the process’s niceness (0 unless it was started nicer)', async () => {
    await checkFromNicerThread(dir, 0);
    expect(await fs.readFile(path.join(dir, 'autogroup'), 'utf8')).toMatch(new RegExp(`^/autogroup-\\d+ nice ${getPriority()}\n$`));
  });
});

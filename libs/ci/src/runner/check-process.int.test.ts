import { existsSync, promises as fs } from 'node:fs';
import { getPriority } from 'node:os';
import * as path from 'node:path';
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

  it('when the started byte is read only after the exit, more than 2 s after the start, then the command still counts as started', async () => {
    // Node may report a check's exit before a byte written ahead of it (seen under load: 1 check in 64).
    // Here the byte comes from a process that outlived the wrapper (in a session of its own before the
    // wrapper exits, so that the group's SIGKILL misses it), so that the order is certain.
    const late = 'setsid bash -c ": > escaped; sleep 0.5; printf . >&4" < /dev/null & until [ -e escaped ]; do sleep 0.01; done';
    expect(await run(['bash', '-c', `sleep 2.1; ${late}`])).toEqual({ code: 0, signal: null, started: true });
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

/** Runs a check started `niceness` nicer; it writes its own niceness and its session's scheduling group into files. */
const checkAtNiceness = async (niceness: number): Promise<{ niceness: string; autogroup: string }> => {
  const log = await fs.open(path.join(dir, 'log'), 'w');
  try {
    const argv = checkArgv("awk '{ print $19 }' /proc/self/stat > niceness; cat /proc/self/autogroup > autogroup");
    const proc = await startCheck({ argv, cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, logFd: log.fd, niceness });
    expect(await proc.exited).toMatchObject({ code: 0, started: true });
  } finally {
    await log.close();
  }
  const read = (name: string): Promise<string> => fs.readFile(path.join(dir, name), 'utf8');
  return { niceness: (await read('niceness')).trim(), autogroup: await read('autogroup') };
};

const autogroups = existsSync('/proc/self/autogroup');
if (!autogroups) console.log('SKIPPED check-process niceness tests: this kernel has no /proc/self/autogroup');
(autogroups ? describe : describe.skip)('startCheck with a niceness, where the kernel schedules sessions as groups', () => {
  it('when the check is started 5 nicer, then its process and its session’s group run 5 nicer than this process', async () => {
    const nicer = Math.min(19, getPriority() + 5);
    const seen = await checkAtNiceness(5);
    expect(seen.niceness).toBe(String(nicer));
    expect(seen.autogroup).toMatch(new RegExp(`^/autogroup-\\d+ nice ${nicer}\n$`));
  });

  it('when the check is started at niceness 0, then it and its session’s group run at this process’s niceness', async () => {
    const seen = await checkAtNiceness(0);
    expect(seen.niceness).toBe(String(getPriority()));
    expect(seen.autogroup).toMatch(new RegExp(`^/autogroup-\\d+ nice ${getPriority()}\n$`));
  });
});

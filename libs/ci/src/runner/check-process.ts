import { spawn } from 'node:child_process';

/**
 * Runs the check's command and, beside it, a watchdog reading fd 3, a pipe whose other end only the
 * runner holds. When the runner dies (even by kill -9) the pipe closes, the read ends, and the
 * watchdog kills the whole process group: no check outlives the process that was going to judge it.
 * The command itself gets fd 3 closed.
 */
const WRAPPER = [
  'bash -c "$1" 3<&- &',
  'cmd=$!',
  '( read -r -u 3 _; kill -KILL -- -$$ ) &',
  'watchdog=$!',
  'wait "$cmd"',
  'code=$?',
  'kill "$watchdog" 2>/dev/null',
  'exit "$code"',
].join('\n');

export interface CheckExit {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CheckProcess {
  /** Also the process group id: the wrapper leads its own group. */
  pid: number;
  exited: Promise<CheckExit>;
  /** SIGTERM to the group, SIGKILL to whatever is left after `graceMs`; resolves when the group is gone. */
  killTree(graceMs: number): Promise<void>;
}

export interface StartCheckOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** File descriptor that receives both stdout and stderr. */
  logFd: number;
}

const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the command in its own process group; rejects when it cannot be started at all. */
export const startCheck = (opts: StartCheckOptions): Promise<CheckProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', WRAPPER, 'railyard-check', opts.command], {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['ignore', opts.logFd, opts.logFd, 'pipe'],
    });
    const exited = new Promise<CheckExit>((done) => {
      child.once('exit', (code, signal) => {
        // Whatever the command left running in the background goes with it, as on any CI runner.
        // The group still exists while such processes live, so its id cannot have been reused.
        signalGroup(child.pid ?? 0, 'SIGKILL');
        child.stdio[3]?.destroy();
        done({ code, signal });
      });
    });
    child.once('error', (err) => reject(err));
    child.once('spawn', () => {
      const pid = child.pid as number;
      resolve({
        pid,
        exited,
        killTree: async (graceMs) => {
          if (!signalGroup(pid, 'SIGTERM')) return;
          const deadline = Date.now() + graceMs;
          // Polled rather than timed blindly: SIGKILL goes only to a group known to be still alive.
          while (Date.now() < deadline) {
            if (!signalGroup(pid, 0)) return;
            await sleep(50);
          }
          signalGroup(pid, 'SIGKILL');
          await exited;
        },
      });
    });
  });

import { spawn } from 'node:child_process';

/**
 * Runs the argv given after it and, beside it, a watchdog reading fd 3, a pipe whose other end only
 * the runner holds. When the runner dies (even by kill -9) the pipe closes, the read ends, and the
 * watchdog kills the whole process group: no check outlives the process that was going to judge it.
 *
 * The wrapper and the argv's own launcher (bwrap) ignore SIGTERM: bwrap dies on it and takes the
 * sandbox down at once, which would leave a cancelled check no grace period. `env --default-signal`
 * in STARTED gives the command SIGTERM back, so a cancel still reaches it first.
 */
const WRAPPER = [
  // A cgroup to join first (empty: none), so that every process of the check is in it from the start.
  'cg=$1; shift',
  'if [ -n "$cg" ]; then echo $$ > "$cg" || exit 125; fi',
  "trap '' TERM",
  // The wrapper leads a session of its own (spawn's `detached`), and where the kernel schedules by
  // session (autogroup) that session weighs as much as the whole server, whatever the check's
  // niceness. So the session takes the niceness this shell was started with (startCheck's `nice`);
  // best effort: the kernel limits how often an unprivileged process may change it.
  'read -r st < /proc/$$/stat 2>/dev/null && st=(${st##*) }) && [ "${st[16]:-0}" -gt 0 ] && { echo "${st[16]}" > /proc/self/autogroup; } 2>/dev/null',
  '( read -r -u 3 _; kill -KILL -- -$$ ) 4>&- &',
  'watchdog=$!',
  // Not a job of this shell any more: its SIGKILL below is not reported in the check's log.
  'disown "$watchdog"',
  '"$@" 3<&- &',
  'cmd=$!',
  'wait "$cmd"',
  'code=$?',
  'kill -KILL "$watchdog" 2>/dev/null',
  'exit "$code"',
].join('\n');

/**
 * The last step before the check's command, inside the sandbox: one byte on fd 4 says "the sandbox
 * is up and the command starts"; then every descriptor but 0, 1 and 2 is closed (fd 4, and whatever
 * the server inherited from its own parent: bwrap passes descriptors through), and the command runs
 * with `bash -c`. A process that exits without that byte never ran the command: an infrastructure
 * error, not the check failing.
 */
const STARTED = [
  // The check's rlimits (limits.ts), set before the started byte: one that cannot be set is the
  // runner's problem, not the check's. Empty: not set.
  'if [ -n "$2" ]; then ulimit -u "$2"; fi',
  'if [ -n "$3" ]; then ulimit -d "$3"; fi',
  'if [ -n "$4" ]; then ulimit -f "$4"; fi',
  'printf . >&4',
  // No redirection on the loop: bash would park stderr on a spare descriptor, which the loop closes.
  'for fd in /proc/$$/fd/*; do fd=${fd##*/}; if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi; done',
  'exec bash -c "$1"',
].join('\n');

/** The rlimits a check's command runs under (bash `ulimit` units: KiB for data and file size). */
export interface CheckRlimits {
  /** RLIMIT_NPROC: counted per uid, or per user namespace (Linux 5.14+): only where that is the check's own. */
  processes?: number;
  /** RLIMIT_DATA, KiB: the private memory one process may hold (unlike RLIMIT_AS, not its reserved address space). */
  dataKib?: number;
  /** RLIMIT_FSIZE, KiB: the largest file it may write; past it, SIGXFSZ. */
  fileKib?: number;
}

/** The argv that runs `command` as a check, with default signal handling, its rlimits and the started byte. */
export const checkArgv = (command: string, rlimits: CheckRlimits = {}): string[] => [
  'env',
  '--default-signal=TERM',
  'bash',
  '-c',
  STARTED,
  'railyard-check',
  command,
  String(rlimits.processes ?? ''),
  String(rlimits.dataKib ?? ''),
  String(rlimits.fileKib ?? ''),
];

export interface CheckExit {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether the command itself was reached (the started byte arrived). */
  started: boolean;
}

export interface CheckProcess {
  /** Also the process group id: the wrapper leads its own group. */
  pid: number;
  exited: Promise<CheckExit>;
  /** SIGTERM to the group, SIGKILL to whatever is left after `graceMs`; resolves when the group is gone. */
  killTree(graceMs: number): Promise<void>;
}

export interface StartCheckOptions {
  /** What to run: checkArgv's, possibly inside a sandbox's. */
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** File descriptor that receives both stdout and stderr. */
  logFd: number;
  /** The `cgroup.procs` of the check's cgroup, joined before anything else runs. */
  cgroupProcs?: string;
  /**
   * How much nicer than this process the check runs (Linux niceness, added, capped at 19; 0 or unset:
   * as this process), so that a CPU-heavy check yields to the server's API (docs/decisions.md D330).
   */
  niceness?: number;
}

const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
};

/** How long after the exit fd 4 may stay open before the check is judged without waiting further. */
const MARKER_WAIT_MS = 2000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the argv in its own process group; rejects when it cannot be started at all. */
export const startCheck = (opts: StartCheckOptions): Promise<CheckProcess> =>
  new Promise((resolve, reject) => {
    const wrapper = ['bash', '-c', WRAPPER, 'railyard-check', opts.cgroupProcs ?? '', ...opts.argv];
    // `nice` execs the wrapper in the same process: the pid is still the group's, and everything the
    // check starts, its watchdog included, inherits the niceness. Raising it needs no privilege.
    const argv = opts.niceness ? ['nice', '-n', String(opts.niceness), ...wrapper] : wrapper;
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['ignore', opts.logFd, opts.logFd, 'pipe', 'pipe'],
    });
    let started = false;
    const marker = child.stdio[4];
    marker?.on('data', () => (started = true));
    const exited = new Promise<CheckExit>((done) => {
      child.once('exit', (code, signal) => {
        // Whatever the command left running in the background goes with it, as on any CI runner.
        // The group still exists while such processes live, so its id cannot have been reused.
        signalGroup(child.pid ?? 0, 'SIGKILL');
        child.stdio[3]?.destroy();
        // Node may report the exit before the byte that was written ahead of it has been read: the
        // byte is judged once fd 4 is closed by every holder. Bounded from the exit (a holder nobody
        // foresaw must not keep the check from being judged), then one more poll of the loop, so
        // that a byte already in the pipe is read even when the loop was late.
        const judge = () =>
          setImmediate(() => {
            marker?.destroy();
            done({ code, signal, started });
          });
        if (!marker || marker.closed) return judge();
        const onClose = (): void => {
          clearTimeout(timer);
          judge();
        };
        const timer = setTimeout(() => {
          marker.off('close', onClose);
          judge();
        }, MARKER_WAIT_MS);
        timer.unref();
        marker.once('close', onClose);
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

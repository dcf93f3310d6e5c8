import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { processTree, treeCpuSeconds } from './process-tree';

export const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

export interface ChildOptions {
  /** Script path relative to the repository root, run with tsx as `npm start` does. */
  script: string;
  env: NodeJS.ProcessEnv;
  /** stdout and stderr go here, not through this process: reading them would steal CPU from the load generator. */
  logFile: string;
  /** A log line matching this means the process is ready; a JSON line with `port` gives the port. */
  ready: RegExp;
  timeoutMs?: number;
  /** Extra node flags, e.g. `--cpu-prof` (tsx passes them on to node). */
  nodeFlags?: string[];
  /**
   * Run the script's compiled counterpart in `dist/` (made by `npm run build`) with plain node, as
   * `npm start` does, instead of the TypeScript source through tsx.
   */
  compiled?: boolean;
}

export interface Child {
  proc: ChildProcess;
  /** 0 when the ready line names no port (the projector listens on nothing). */
  port: number;
  url: string;
  running(): boolean;
  /** CPU seconds the process (and what it started) has used so far. */
  cpuSeconds(): number;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const exited = (proc: ChildProcess): Promise<void> =>
  proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise((resolve) => proc.once('exit', () => resolve()));

const tail = (file: string, lines = 20): string => {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
};

/** Starts one of Railyard's entry points (or the baseline) as a real OS process and waits until it says it is ready. */
export const startChild = async (opts: ChildOptions): Promise<Child> => {
  const fd = openSync(opts.logFile, 'a');
  const [command, entry] = opts.compiled
    ? [process.execPath, path.join(ROOT, 'dist', opts.script.replace(/\.ts$/, '.js'))]
    : [TSX, path.join(ROOT, opts.script)];
  const proc = spawn(command, [...(opts.nodeFlags ?? []), entry], {
    cwd: ROOT,
    env: { ...process.env, JEST_WORKER_ID: '', ...opts.env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  // tsx passes SIGTERM on to the node process it starts, but a SIGKILL of tsx would leave that one
  // running; so a kill goes to every process of the tree.
  const killAll = () => {
    for (const pid of proc.pid === undefined ? [] : processTree(proc.pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  const port = await new Promise<number>((resolve, reject) => {
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    const onExit = (code: number | null) => {
      clearInterval(timer);
      reject(new Error(`${opts.script} exited with ${code} before it was ready:\n${tail(opts.logFile)}`));
    };
    const timer = setInterval(() => {
      const line = readFileSync(opts.logFile, 'utf8')
        .split('\n')
        .find((l) => opts.ready.test(l));
      if (line === undefined) {
        if (Date.now() < deadline) return;
        clearInterval(timer);
        proc.off('exit', onExit);
        killAll();
        reject(new Error(`${opts.script} was not ready in time:\n${tail(opts.logFile)}`));
        return;
      }
      clearInterval(timer);
      proc.off('exit', onExit);
      try {
        resolve(Number((JSON.parse(line) as { port?: number }).port ?? 0));
      } catch {
        resolve(0);
      }
    }, 50);
    proc.once('exit', onExit);
  });
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}`,
    running: () => proc.exitCode === null && proc.signalCode === null,
    cpuSeconds: () => (proc.pid === undefined ? 0 : treeCpuSeconds(proc.pid)),
    stop: async (graceMs = 30_000) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const done = exited(proc);
      proc.kill('SIGTERM');
      const timer = setTimeout(killAll, graceMs);
      await done;
      clearTimeout(timer);
    },
  };
};

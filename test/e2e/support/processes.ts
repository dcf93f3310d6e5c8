import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { BUILD_DIR } from '../../setup/compiled-build';

export const ROOT = path.resolve(__dirname, '../../..');

/**
 * An entry point (a path in the sources, e.g. `apps/server/src/main.ts`) as the production build has it.
 * The tier's global setup builds dist/ when stale (D300): a compiled process starts in half the CPU of
 * one under tsx, and it is what production runs.
 */
export const compiled = (script: string): string => path.join(BUILD_DIR, script.replace(/\.ts$/, '.js'));

/** The `railyard` command from the build: the bin without tsx, on compiled modules (local commands too). */
export const RAILYARD_BIN = compiled('apps/cli/bin/railyard.js');

export interface RunningProcess {
  proc: ChildProcess;
  url: string;
  port: number;
  /** Everything the process printed on stdout so far. */
  output(): string;
  /** Graceful stop (SIGTERM), resolves with the exit code. */
  stop(): Promise<number | null>;
  /** kill -9: no chance to flush or close anything. */
  kill9(): Promise<void>;
}

const exited = (proc: ChildProcess): Promise<number | null> =>
  proc.exitCode !== null || proc.signalCode !== null
    ? Promise.resolve(proc.exitCode)
    : new Promise((resolve) => proc.once('exit', (code) => resolve(code)));

/**
 * Starts one of Railyard's entry points (named by its source path, run compiled) as a real OS process
 * and waits for its structured "listening" log line, which names the port (tests pass PORT=0).
 */
export const startProcess = async (
  script: string,
  env: NodeJS.ProcessEnv,
  opts: { listens?: boolean; ready?: RegExp; timeoutMs?: number } = {},
): Promise<RunningProcess> => {
  // One OS process, so kill -9 really kills the server.
  const proc = spawn(process.execPath, [compiled(script)], {
    cwd: ROOT,
    env: { ...process.env, JEST_WORKER_ID: '', RAILYARD_LOG_LEVEL: 'info', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const listens = opts.listens ?? true;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: no handle reaches the caller to stop it, and it would keep the test run open.
      proc.kill('SIGKILL');
      reject(new Error(`${script} did not start in time\nstdout: ${out}\nstderr: ${err}`));
    }, opts.timeoutMs ?? 60_000);
    const check = () => {
      const line = out.split('\n').find((l) => (opts.ready ?? /"message":"[\w ]*listening"/).test(l));
      if (!line) return;
      clearTimeout(timer);
      proc.stdout?.off('data', check);
      if (!listens) return resolve(0);
      try {
        resolve(Number((JSON.parse(line) as { port: number }).port));
      } catch {
        reject(new Error(`unexpected start line: ${line}`));
      }
    };
    proc.stdout?.on('data', check);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}\nstdout: ${out}\nstderr: ${err}`));
    });
  });
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    stop: async () => {
      proc.kill('SIGTERM');
      return exited(proc);
    },
    kill9: async () => {
      proc.kill('SIGKILL');
      await exited(proc);
    },
  };
};

/**
 * The README's `npm start` on a fresh data dir, with the engine on: the server bootstraps its own admin
 * token (printed as `x-api-token: …`) and runs the local CI. `env` adds to it (a PATH, secrets).
 */
export const startReadmeServer = async (
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ server: RunningProcess; adminToken: string }> => {
  const server = await startProcess('apps/server/src/main.ts', {
    RAILYARD_DATA_DIR: dataDir,
    RAILYARD_API_TOKENS: '',
    RAILYARD_ENGINE: 'on',
    RAILYARD_ENGINE_TICK_MS: '200',
    ...env,
  });
  return { server, adminToken: /x-api-token: (\S+)/.exec(server.output())?.[1] ?? '' };
};

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Kilobytes of one line of /proc/<pid>/status (VmHWM: peak resident set, VmRSS: now). */
export const procKb = (pid: number, field: 'VmHWM' | 'VmRSS'): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.replace(/\D+/g, '') ?? NaN);
};

/**
 * The embedded server with the engine off and one admin token, for benchmarks about its memory.
 * node --import tsx, not the tsx CLI: one OS process, whose /proc entry is the server's.
 */
export const startEmbeddedServer = async (
  dataDir: string,
  token: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ proc: ChildProcess; url: string; stop(): Promise<void> }> => {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      RAILYARD_DATA_DIR: dataDir,
      RAILYARD_API_TOKENS: `bench:${token}:admin`,
      RAILYARD_ENGINE: 'off',
      RAILYARD_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    proc.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  };
  return { proc, url, stop };
};

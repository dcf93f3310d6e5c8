import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { build } from '../scripts/build/build';
import { procKb } from './support/embedded-server';

/**
 * `npm run bench -- start [runs]`: the embedded server's start as `npm start` runs it, from the
 * TypeScript sources through tsx (what `npm start` ran before the build, docs/decisions.md D90) and from
 * the compiled build (`scripts/start.js`, the build made once beforehand), alternately, `runs` times each
 * (default 5). Each run gets a fresh data dir and the default settings (engine on), and reports the time
 * from spawn to the first 200 on /healthz and the server's resident set then (VmRSS) and at its peak
 * (VmHWM). npm's own start-up, the same for both, is left out.
 */

const ROOT = path.resolve(__dirname, '..');
const VARIANTS = {
  tsx: ['--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts')],
  compiled: [path.join(ROOT, 'scripts/start.js')],
} as const;
type Variant = keyof typeof VARIANTS;

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

const healthy = async (url: string): Promise<boolean> => {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
};

const startOnce = async (variant: Variant) => {
  const dataDir = await makeTempDir('railyard-bench-start-');
  const port = await freePort();
  const started = process.hrtime.bigint();
  const proc = spawn(process.execPath, [...VARIANTS[variant]], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), RAILYARD_DATA_DIR: dataDir, RAILYARD_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const deadline = Date.now() + 60_000;
    while (!(await healthy(`http://127.0.0.1:${port}/healthz`))) {
      if (proc.exitCode !== null) throw new Error(`${variant}: the server exited with ${proc.exitCode}`);
      if (Date.now() > deadline) throw new Error(`${variant}: no 200 on /healthz within 60 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const pid = proc.pid ?? 0;
    return { ms, rssMb: procKb(pid, 'VmRSS') / 1024, peakMb: procKb(pid, 'VmHWM') / 1024 };
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
    await removeTempDir(dataDir);
  }
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};
const round = (n: number) => Math.round(n * 10) / 10;

export const run = async (args: string[]): Promise<object[]> => {
  const runs = Number(args[0] ?? 5);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`runs must be a positive integer, not ${args[0]}`);
  build();
  const samples: Record<Variant, { ms: number; rssMb: number; peakMb: number }[]> = { tsx: [], compiled: [] };
  await startOnce('tsx'); // warm-up: the file system cache and tsx's own cache, for both variants alike
  await startOnce('compiled');
  for (let i = 0; i < runs; i++) {
    for (const variant of Object.keys(VARIANTS) as Variant[]) samples[variant].push(await startOnce(variant));
  }
  const summary = (variant: Variant) => {
    const s = samples[variant];
    return {
      name: `start/${variant}`,
      runs,
      firstOkMsMedian: round(median(s.map((x) => x.ms))),
      firstOkMsMin: round(Math.min(...s.map((x) => x.ms))),
      firstOkMsMax: round(Math.max(...s.map((x) => x.ms))),
      rssMbMedian: round(median(s.map((x) => x.rssMb))),
      peakRssMbMedian: round(median(s.map((x) => x.peakMb))),
    };
  };
  const tsx = summary('tsx');
  const compiled = summary('compiled');
  return [
    tsx,
    compiled,
    {
      name: 'start/ratio',
      firstOkTimeTsxOverCompiled: round(tsx.firstOkMsMedian / compiled.firstOkMsMedian),
      rssTsxOverCompiled: round(tsx.rssMbMedian / compiled.rssMbMedian),
    },
  ];
};

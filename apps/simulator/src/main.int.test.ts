import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

// Each case starts node with tsx and runs a workload: seconds on a busy machine.
jest.setTimeout(60_000);

/** `npm run simulate -- …` as an operator runs it: a real node process with tsx, from the repository root. */
const simulateCli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'apps/simulator/src/main.ts', ...args],
      { cwd: ROOT, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });

const lines = (stdout: string): Record<string, unknown>[] =>
  stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('npm run simulate', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'railyard-sim-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('when given a shipped workload, then it prints one JSON line with the measured and bound throughput', async () => {
    const { code, stdout, stderr } = await simulateCli(['bench/workloads/single-p10-c08.json', '--prs', '300']);
    expect(stderr).not.toContain('INVARIANT');
    expect(code).toBe(0);
    const [result, ...rest] = lines(stdout);
    expect(rest).toEqual([]);
    expect(result).toMatchObject({
      workload: 'single-p10-c08',
      prs: 300,
      boundMergesPerHour: 10.25,
      innocentEjections: 0,
      badMerges: 0,
      unfinished: 0,
    });
    for (const field of ['mergesPerHour', 'ciRunsPerMerge', 'p50TimeInQueueMin', 'p95TimeInQueueMin'])
      expect(typeof result?.[field]).toBe('number');
  });

  it('when given a folder, then every workload in it runs in name order', async () => {
    const base = { prs: 40, arrivalsPerHour: 30, warmupMinutes: 0, ci: { durationMinutes: 10 }, failureRate: 0.1 };
    await writeFile(path.join(dir, 'b.json'), JSON.stringify({ ...base, name: 'second' }));
    await writeFile(
      path.join(dir, 'a.yaml'),
      `name: first\nprs: 40\narrivalsPerHour: 30\nwarmupMinutes: 0\nci:\n  durationMinutes: 10\nfailureRate: 0.1\n`,
    );
    const { code, stdout } = await simulateCli([dir]);
    expect(code).toBe(0);
    expect(lines(stdout).map((r) => r.workload)).toEqual(['first', 'second']);
  });

  it('when a workload is invalid, then it exits 2 naming the bad field and prints no result', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ name: 'bad', prs: 10, arrivalsPerHour: 30, ci: { durationMinutes: 10 }, failureRate: 2 }));
    const { code, stdout, stderr } = await simulateCli([file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('failureRate');
  });
});

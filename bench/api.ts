import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { build } from '../scripts/build/build';
import { groupsOf, layoutOf, settingsFromEnv, type Case, type Settings } from './support/api-cases';
import { headOf, type Deployment } from './support/deployments';
import { prepareRepository } from './support/git-fixture';
import { postJson } from './support/http';
import { compareInterleaved } from './support/load';
import { startChild, type Child } from './support/processes';

/**
 * `npm run bench -- api [filter...]`: the HTTP API under autocannon, each case next to a bare
 * express baseline answering the same bytes in the same run. Filters pick cases by substring
 * (`api redis`, `api submitPullRequest/fresh`). See docs/benchmarks.md.
 */

const progress = (line: string): void => {
  process.stderr.write(`[bench api] ${line}\n`);
};

// Requests autocannon abandoned at the end of a run still complete in the server; let them land.
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** One case: sample the real answer, give the baseline those bytes to answer, then measure both in alternating rounds. */
const measure = async (c: Case, d: Deployment, baseline: Child, s: Settings): Promise<object> => {
  const sampleBody = c.body();
  const sample = await postJson(d.url, c.path, d.token, sampleBody);
  if (sample.status !== 200) throw new Error(`${c.name}: the sample request answered ${sample.status}: ${sample.text.slice(0, 500)}`);
  const put = await fetch(`${baseline.url}/payload`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: sample.text });
  if (put.status !== 204) throw new Error(`the baseline refused its payload (${put.status})`);

  progress(`${c.name}: ${s.rounds} rounds of baseline and railyard`);
  let before = 0n;
  const { baseline: base, subject: real } = await compareInterleaved({
    baseline: { url: `${baseline.url}/bench`, headers: {}, nextBody: () => sampleBody, cpuSeconds: () => baseline.cpuSeconds() },
    subject: { url: `${d.url}/v1${c.path}`, headers: { 'x-api-token': d.token }, nextBody: c.body, cpuSeconds: () => d.cpuSeconds() },
    connections: s.connections,
    seconds: s.seconds,
    rounds: s.rounds,
    warmupSeconds: s.warmupSeconds,
    beforeMeasure: c.countsEvents
      ? async () => {
          await settle();
          before = await headOf(d.eventStore);
        }
      : undefined,
  });
  if (!d.alive())
    throw new Error(`${c.name}: a Railyard process exited during the run (its log is in the work directory; BENCH_KEEP=1 keeps it)`);
  let events = {};
  if (c.countsEvents) {
    await settle();
    const appended = Number((await headOf(d.eventStore)) - before);
    events = { eventsAppended: appended, eventsPerOkRequest: real.ok > 0 ? round3(appended / real.ok) : 0 };
  }
  const ratio = base.reqPerSec > 0 ? round3(real.reqPerSec / base.reqPerSec) : 0;
  return {
    name: c.name,
    reqPerSec: real.reqPerSec,
    p99Ms: real.p99Ms,
    baselineReqPerSec: base.reqPerSec,
    ratio,
    errors: real.errors,
    non2xx: real.non2xx,
    p50Ms: real.p50Ms,
    baselineP99Ms: base.p99Ms,
    cpuMsPerRequest: real.cpuMsPerRequest,
    baselineCpuMsPerRequest: base.cpuMsPerRequest,
    // What the throughput ratio would be if the server's own CPU were all that limited both sides.
    cpuRatio: real.cpuMsPerRequest > 0 ? round3(base.cpuMsPerRequest / real.cpuMsPerRequest) : 0,
    responseBytes: Buffer.byteLength(sample.text),
    connections: s.connections,
    seconds: s.seconds,
    // Other work on the machine skews everything; the load average says how quiet it was.
    loadAvg1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    ...events,
    ...(c.extra?.() ?? {}),
    ...(c.target ? { target: c.target.text, met: c.target.met(real, ratio) } : {}),
    server: s.server,
  };
};

export async function* run(args: string[] = []): AsyncIterable<object> {
  const s = settingsFromEnv();
  const wanted = (name: string) => args.length === 0 || args.some((a) => name.includes(a));
  const allNames = groupsOf(s, layoutOf(s, false)).flatMap((g) => g.cases.map((c) => c.name));
  const names = allNames.filter(wanted);
  if (names.length === 0) throw new Error(`no api case matches ${args.join(' ')}; the cases are: ${allNames.join(', ')}`);
  const layout = layoutOf(
    s,
    names.some((n) => n.includes('/fresh/')),
  );
  const groups = groupsOf(s, layout)
    .map((g) => ({ ...g, cases: g.cases.filter((c) => wanted(c.name)) }))
    .filter((g) => g.cases.length > 0);

  const work = await makeTempDir('railyard-bench-api-');
  const logDir = path.join(work, 'logs');
  const gitRoot = path.join(work, 'git');
  mkdirSync(logDir);
  if (s.cpuProfDir) mkdirSync(s.cpuProfDir, { recursive: true });
  if (s.server === 'build') {
    progress('building dist/ (npm run build)');
    build();
  }
  let baseline: Child | undefined;
  let failed = true;
  try {
    const pulls = [...layout.reads, ...layout.resubmit, ...layout.fresh];
    progress(`opening ${pulls.length} PRs in ${gitRoot}`);
    await prepareRepository(gitRoot, layout.branches, pulls);
    baseline = await startChild({
      script: 'bench/support/baseline-server.ts',
      env: {},
      logFile: path.join(logDir, 'baseline.log'),
      ready: /"message":"baseline listening"/,
    });
    for (const group of groups) {
      const dataDir = path.join(work, group.label);
      const nodeFlags = s.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${s.cpuProfDir}`] : undefined;
      progress(`starting the ${group.label} deployment`);
      const deployment = await group.start({ dataDir, gitRoot, logDir, label: group.label, nodeFlags, compiled: s.server === 'build' });
      try {
        await group.prepare(deployment);
        for (const c of group.cases) yield await measure(c, deployment, baseline, s);
      } finally {
        await deployment.stop();
        await group.cleanup?.();
      }
    }
    failed = false;
  } finally {
    await baseline?.stop();
    // A failed run keeps its logs: they are the only account of what went wrong.
    if (s.keepWorkDir || failed) progress(`kept ${work}`);
    else await removeTempDir(work);
  }
}

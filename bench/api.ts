import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteEventStore } from '@railyard/eventstore';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { startDistributed, startEmbedded, type Deployment, type DeploymentOptions } from './support/deployments';
import { BENCH_REPO, prepareRepository, type PullSpec } from './support/git-fixture';
import { inParallel, postJson, postOk } from './support/http';
import { compareInterleaved, type LoadResult } from './support/load';
import { startChild, type Child } from './support/processes';
import { dropNamespace } from './support/redis-namespace';
import { cyclingPrBodies, freshSubmitBodies, queueBody, resubmitBodies, type BodySource } from './support/request-bodies';
import { positiveIntFromEnv, redisUrlFromEnv, uniqueNamespace } from './support/settings';

/**
 * `npm run bench -- api [filter...]`: the HTTP API under autocannon, each case next to a bare
 * express baseline answering the same bytes in the same run. Filters pick cases by substring
 * (`api redis`, `api submitPullRequest/fresh`). See docs/benchmarks.md.
 */

interface Settings {
  seconds: number;
  /** The measured seconds of each side are split into this many alternating rounds. */
  rounds: number;
  warmupSeconds: number;
  connections: number;
  /** PRs queued for the read cases: the getQueue answer lists them all. */
  readPrs: number;
  /** Queues (target branches of one repository) the submission cases spread over. */
  submitQueues: number;
  /** PRs queued (over all submit queues) before the re-submit case; each request re-submits one of them. */
  resubmitPrs: number;
  /** PRs opened but never submitted, for the first-submission case. */
  freshPrs: number;
  redisUrl: string;
  /** When set, every Railyard process writes a V8 CPU profile here on exit. */
  cpuProfDir?: string;
  keepWorkDir: boolean;
}

const settingsFromEnv = (env: NodeJS.ProcessEnv = process.env): Settings => ({
  seconds: positiveIntFromEnv('BENCH_SECONDS', 10, env),
  rounds: positiveIntFromEnv('BENCH_ROUNDS', 5, env),
  warmupSeconds: positiveIntFromEnv('BENCH_WARMUP_SECONDS', 2, env),
  connections: positiveIntFromEnv('BENCH_CONNECTIONS', 10, env),
  readPrs: positiveIntFromEnv('BENCH_READ_PRS', 50, env),
  submitQueues: positiveIntFromEnv('BENCH_SUBMIT_QUEUES', 10, env),
  resubmitPrs: positiveIntFromEnv('BENCH_RESUBMIT_PRS', 1000, env),
  freshPrs: positiveIntFromEnv('BENCH_FRESH_PRS', 20_000, env),
  redisUrl: redisUrlFromEnv(env),
  cpuProfDir: env.BENCH_CPU_PROF ? path.resolve(env.BENCH_CPU_PROF) : undefined,
  keepWorkDir: env.BENCH_KEEP === '1',
});

interface Target {
  text: string;
  met: (r: LoadResult, ratio: number) => boolean;
}

interface Case {
  name: string;
  path: string;
  body: BodySource;
  /** Submissions: count the events the run appended, to show each request did write. */
  countsEvents?: boolean;
  target?: Target;
  /** Extra fields for the result line, read after the run. */
  extra?: () => object;
}

interface Group {
  label: string;
  cases: Case[];
  start(opts: DeploymentOptions): Promise<Deployment>;
  /** Queue and PRs the cases need, made through the API itself. */
  prepare(d: Deployment): Promise<void>;
  cleanup?(): Promise<void>;
}

const READ_BRANCH = 'main';

/** Which PRs each kind of case uses: separate numbers, so no case sees another's submissions. */
interface PullLayout {
  branches: string[];
  reads: PullSpec[];
  resubmit: PullSpec[];
  fresh: PullSpec[];
}

const layoutOf = (s: Settings, withFresh: boolean): PullLayout => {
  const submitBranches = Array.from({ length: s.submitQueues }, (_, i) => `branch-${i}`);
  const spread = (first: number, count: number): PullSpec[] =>
    Array.from({ length: count }, (_, i) => ({ number: first + i, base: submitBranches[i % submitBranches.length] as string }));
  const reads = Array.from({ length: s.readPrs }, (_, i) => ({ number: i + 1, base: READ_BRANCH }));
  const resubmit = spread(s.readPrs + 1, s.resubmitPrs);
  const fresh = withFresh ? spread(s.readPrs + s.resubmitPrs + 1, s.freshPrs) : [];
  return { branches: [READ_BRANCH, ...submitBranches], reads, resubmit, fresh };
};

const READ_RATIO: Target = { text: 'ratio >= 0.6', met: (_r, ratio) => ratio >= 0.6 };
const SUBMIT_RATE: Target = { text: 'reqPerSec >= 1000 and p99Ms < 20', met: (r) => r.reqPerSec >= 1000 && r.p99Ms < 20 };

const progress = (line: string): void => {
  process.stderr.write(`[bench api] ${line}\n`);
};

/** Creates the queue of every branch the PRs target and submits the PRs, through the API itself. */
const createQueuesAndSubmit = async (d: Deployment, pulls: PullSpec[], queue: object = {}): Promise<void> => {
  for (const branch of new Set(pulls.map((p) => p.base))) await postOk(d.url, '/createQueue', d.token, { repo: BENCH_REPO, targetBranch: branch, ...queue });
  await inParallel(pulls, 8, (p) => postOk(d.url, '/submitPullRequest', d.token, { repo: BENCH_REPO, targetBranch: p.base, pr: { number: p.number } }));
};

const readCases = (label: string, layout: PullLayout): Case[] => [
  {
    name: `getSubmittedPullRequest/${label}`,
    path: '/getSubmittedPullRequest',
    body: cyclingPrBodies(BENCH_REPO, layout.reads),
    target: READ_RATIO,
  },
  { name: `getQueue/${label}`, path: '/getQueue', body: queueBody(BENCH_REPO, READ_BRANCH) },
];

const resubmitCase = (name: string, layout: PullLayout, target?: Target): Case => ({
  name,
  path: '/submitPullRequest',
  body: resubmitBodies(BENCH_REPO, layout.resubmit),
  countsEvents: true,
  ...(target ? { target } : {}),
});

const freshCase = (name: string, layout: PullLayout): Case => {
  const fresh = freshSubmitBodies(BENCH_REPO, layout.fresh);
  return {
    name,
    path: '/submitPullRequest',
    body: fresh,
    countsEvents: true,
    extra: () => ({ freshPrsAskedFor: fresh.used(), freshPrsPrepared: layout.fresh.length }),
  };
};

/**
 * Reads run against the embedded process as shipped (engine on), on a paused queue: the benchmark
 * repository has no CI configuration, so on a running queue the engine would fail the PRs one by
 * one (git runs included) while the reads are measured. Submissions run with the engine off, so the
 * numbers are the API's write path (HTTP, decide, append, read-your-writes); the one engine-on case
 * shows what the engine's reaction to every event costs the API, again on paused queues.
 * Submissions spread over several queues of realistic depth: one queue never sees a thousand
 * submissions a second, a service with many repositories and branches does.
 */
const groupsOf = (s: Settings, layout: PullLayout): Group[] => {
  const namespace = uniqueNamespace('api');
  const submitGroup = (sync: 'full' | 'normal'): Group => ({
    label: `sqlite-${sync}`,
    cases: [resubmitCase(`submitPullRequest/resubmit/sqlite-${sync}`, layout, SUBMIT_RATE), freshCase(`submitPullRequest/fresh/sqlite-${sync}`, layout)],
    start: (opts) => startEmbedded({ ...opts, sync, engine: false }),
    prepare: (d) => createQueuesAndSubmit(d, layout.resubmit),
  });
  return [
    {
      label: 'embedded',
      cases: readCases('embedded', layout),
      start: (opts) => startEmbedded(opts),
      prepare: (d) => createQueuesAndSubmit(d, layout.reads, { state: 'paused' }),
    },
    {
      label: 'redis',
      cases: readCases('redis', layout),
      start: (opts) => startDistributed({ ...opts, redisUrl: s.redisUrl, namespace }),
      prepare: (d) => createQueuesAndSubmit(d, layout.reads, { state: 'paused' }),
      cleanup: async () => {
        await dropNamespace(s.redisUrl, namespace);
      },
    },
    submitGroup('full'),
    submitGroup('normal'),
    {
      label: 'sqlite-full-engine',
      cases: [resubmitCase('submitPullRequest/resubmit/sqlite-full/engine-on-paused-queues', layout)],
      start: (opts) => startEmbedded({ ...opts, sync: 'full', engine: true }),
      prepare: (d) => createQueuesAndSubmit(d, layout.resubmit, { state: 'paused' }),
    },
  ];
};

const headOf = async (eventsFile: string): Promise<bigint> => {
  const store = new SqliteEventStore({ file: eventsFile });
  try {
    return (await store.headPosition()) ?? 0n;
  } finally {
    await store.close();
  }
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
          before = await headOf(d.eventsFile);
        }
      : undefined,
  });
  if (!d.alive()) throw new Error(`${c.name}: a Railyard process exited during the run (its log is in the work directory; BENCH_KEEP=1 keeps it)`);
  let events = {};
  if (c.countsEvents) {
    await settle();
    const appended = Number((await headOf(d.eventsFile)) - before);
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
  };
};

export async function* run(args: string[] = []): AsyncIterable<object> {
  const s = settingsFromEnv();
  const wanted = (name: string) => args.length === 0 || args.some((a) => name.includes(a));
  const allNames = groupsOf(s, layoutOf(s, false)).flatMap((g) => g.cases.map((c) => c.name));
  const names = allNames.filter(wanted);
  if (names.length === 0) throw new Error(`no api case matches ${args.join(' ')}; the cases are: ${allNames.join(', ')}`);
  const layout = layoutOf(s, names.some((n) => n.includes('/fresh/')));
  const groups = groupsOf(s, layout)
    .map((g) => ({ ...g, cases: g.cases.filter((c) => wanted(c.name)) }))
    .filter((g) => g.cases.length > 0);

  const work = await makeTempDir('railyard-bench-api-');
  const logDir = path.join(work, 'logs');
  const gitRoot = path.join(work, 'git');
  mkdirSync(logDir);
  if (s.cpuProfDir) mkdirSync(s.cpuProfDir, { recursive: true });
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
      const deployment = await group.start({ dataDir, gitRoot, logDir, label: group.label, nodeFlags });
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

import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@railyard/testkit';
import { startDistributed, startEmbedded, type Deployment, type DeploymentOptions } from './deployments';
import { BENCH_REPO, type PullSpec } from './git-fixture';
import { inParallel, postOk } from './http';
import type { LoadResult } from './load';
import { dropNamespace } from './redis-namespace';
import { cyclingPrBodies, freshSubmitBodies, queueBody, resubmitBodies, type BodySource } from './request-bodies';
import { positiveIntFromEnv, postgresUrlFromEnv, redisUrlFromEnv, uniqueNamespace } from './settings';

/** The API benchmark's knobs, its cases, and the deployments they run against. */

export interface Settings {
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
  /** The server the PostgreSQL cases create their database on. */
  postgresUrl: string;
  /** When set, every Railyard process writes a V8 CPU profile here on exit. */
  cpuProfDir?: string;
  /** `build`: Railyard's processes run from the compiled build, as `npm start` runs them; `sources`: through tsx. */
  server: 'sources' | 'build';
  keepWorkDir: boolean;
}

const serverFromEnv = (env: NodeJS.ProcessEnv): Settings['server'] => {
  const raw = env.BENCH_SERVER || 'sources';
  if (raw !== 'sources' && raw !== 'build') throw new Error(`BENCH_SERVER must be sources or build, not "${raw}"`);
  return raw;
};

export const settingsFromEnv = (env: NodeJS.ProcessEnv = process.env): Settings => ({
  seconds: positiveIntFromEnv('BENCH_SECONDS', 10, env),
  rounds: positiveIntFromEnv('BENCH_ROUNDS', 5, env),
  warmupSeconds: positiveIntFromEnv('BENCH_WARMUP_SECONDS', 2, env),
  connections: positiveIntFromEnv('BENCH_CONNECTIONS', 10, env),
  readPrs: positiveIntFromEnv('BENCH_READ_PRS', 50, env),
  submitQueues: positiveIntFromEnv('BENCH_SUBMIT_QUEUES', 10, env),
  resubmitPrs: positiveIntFromEnv('BENCH_RESUBMIT_PRS', 1000, env),
  freshPrs: positiveIntFromEnv('BENCH_FRESH_PRS', 20_000, env),
  redisUrl: redisUrlFromEnv(env),
  postgresUrl: postgresUrlFromEnv(env),
  cpuProfDir: env.BENCH_CPU_PROF ? path.resolve(env.BENCH_CPU_PROF) : undefined,
  server: serverFromEnv(env),
  keepWorkDir: env.BENCH_KEEP === '1',
});

interface Target {
  text: string;
  met: (r: LoadResult, ratio: number) => boolean;
}

export interface Case {
  name: string;
  path: string;
  body: BodySource;
  /** Submissions: count the events the run appended, to show each request did write. */
  countsEvents?: boolean;
  target?: Target;
  /** Extra fields for the result line, read after the run. */
  extra?: () => object;
}

export interface Group {
  label: string;
  cases: Case[];
  start(opts: DeploymentOptions): Promise<Deployment>;
  /** Queue and PRs the cases need, made through the API itself. */
  prepare(d: Deployment): Promise<void>;
  cleanup?(): Promise<void>;
}

const READ_BRANCH = 'main';

/** Which PRs each kind of case uses: separate numbers, so no case sees another's submissions. */
export interface PullLayout {
  branches: string[];
  reads: PullSpec[];
  resubmit: PullSpec[];
  fresh: PullSpec[];
}

export const layoutOf = (s: Settings, withFresh: boolean): PullLayout => {
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

/** Creates the queue of every branch the PRs target and submits the PRs, through the API itself. */
export const createQueuesAndSubmit = async (d: Deployment, pulls: PullSpec[], queue: object = {}): Promise<void> => {
  for (const branch of new Set(pulls.map((p) => p.base)))
    await postOk(d.url, '/createQueue', d.token, { repo: BENCH_REPO, targetBranch: branch, ...queue });
  await inParallel(pulls, 8, (p) =>
    postOk(d.url, '/submitPullRequest', d.token, { repo: BENCH_REPO, targetBranch: p.base, pr: { number: p.number } }),
  );
};

/**
 * Waits until no submitted PR is waiting for its mergeability: with the engine on, submissions record
 * `unspecified` and the engine works each one out in the background, which must not overlap the
 * measured re-submissions (a one-time cost per PR, measured by the fresh case instead).
 */
export const untilMergeabilityKnown = async (d: Deployment, pulls: PullSpec[], timeoutMs = 600_000): Promise<void> => {
  const until = Date.now() + timeoutMs;
  for (const branch of new Set(pulls.map((p) => p.base))) {
    // Every benchmark PR merges cleanly, so each one is pending once the engine learned its mergeability.
    while ((await postOk(d.url, '/getQueue', d.token, { repo: BENCH_REPO, targetBranch: branch })).includes('"state":"not_ready"')) {
      if (Date.now() > until) throw new Error(`mergeability of the PRs on ${branch} was still unknown after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
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
export const groupsOf = (s: Settings, layout: PullLayout): Group[] => {
  const namespace = uniqueNamespace('api');
  let postgres: TestDatabase | undefined;
  const submitGroup = (sync: 'full' | 'normal'): Group => ({
    label: `sqlite-${sync}`,
    cases: [
      resubmitCase(`submitPullRequest/resubmit/sqlite-${sync}`, layout, SUBMIT_RATE),
      freshCase(`submitPullRequest/fresh/sqlite-${sync}`, layout),
    ],
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
      label: 'postgres',
      cases: [
        resubmitCase('submitPullRequest/resubmit/postgres', layout, SUBMIT_RATE),
        freshCase('submitPullRequest/fresh/postgres', layout),
      ],
      start: async (opts) => {
        postgres = await createTestDatabase(s.postgresUrl, 'bench_api');
        return startEmbedded({ ...opts, postgres: { url: postgres.url, schema: 'railyard' }, engine: false });
      },
      prepare: (d) => createQueuesAndSubmit(d, layout.resubmit),
      cleanup: async () => {
        await postgres?.drop();
      },
    },
    {
      label: 'sqlite-full-engine',
      cases: [
        resubmitCase('submitPullRequest/resubmit/sqlite-full/engine-on-paused-queues', layout),
        // First submissions with the engine on as `npm start` ships it: the API records them at once, the
        // engine works out each one's mergeability in the background (a merge per PR) on the same cores.
        { ...freshCase('submitPullRequest/fresh/sqlite-full/engine-on-paused-queues', layout), target: SUBMIT_RATE },
      ],
      start: (opts) => startEmbedded({ ...opts, sync: 'full', engine: true }),
      prepare: async (d) => {
        await createQueuesAndSubmit(d, layout.resubmit, { state: 'paused' });
        await untilMergeabilityKnown(d, layout.resubmit);
      },
    },
  ];
};

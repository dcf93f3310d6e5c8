import path from 'node:path';
import { createTestDatabase, makeTempDir, removeTempDir, type TestDatabase } from '@railyard/testkit';
import { prefixed } from './scale-ready';
import { createQueuesAndSubmit, untilMergeabilityKnown } from './support/api-cases';
import { headOf, startDistributed, startEmbedded, type Deployment } from './support/deployments';
import { BENCH_REPO, prepareRepository, type PullSpec } from './support/git-fixture';
import { postOk } from './support/http';
import { dropNamespace } from './support/redis-namespace';
import { resubmitBodies } from './support/request-bodies';
import { positiveIntFromEnv, postgresUrlFromEnv, redisUrlFromEnv, uniqueNamespace } from './support/settings';

/**
 * `npm run bench -- scale submit [N...]` (issue 29): one paused queue holding N active PRs, then
 * re-submissions over HTTP, one at a time, each with a new priority (so each appends an event): the
 * time of each request, and the CPU of the deployment's processes per request. Embedded: the server
 * with its engine on (which plans the queue again after each event), once every PR's mergeability is
 * known. Distributed: the API and projector processes over PostgreSQL and Redis. BENCH_SUBMIT_REQUESTS
 * sets how many are measured (after a tenth as many unmeasured, to warm up); BENCH_SUBMIT_SHAPES=distributed (or
 * embedded) runs one shape only; BENCH_CPU_PROF=<dir> has every process write a V8 CPU profile there. Distributed
 * rows also give the CPU per submit of each process.
 */

type Shape = 'embedded' | 'distributed';

/** BENCH_SUBMIT_SHAPES: which deployments the curve runs, both unless told; anything else is refused rather than skipped. */
export const submitShapesFromEnv = (env: NodeJS.ProcessEnv = process.env): Shape[] => {
  const shapes = (env.BENCH_SUBMIT_SHAPES || 'embedded,distributed').split(',').map((s) => s.trim());
  for (const s of shapes)
    if (s !== 'embedded' && s !== 'distributed') throw new Error(`BENCH_SUBMIT_SHAPES takes embedded and distributed, not "${s}"`);
  return shapes as Shape[];
};

const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The value at quantile q of sorted numbers (nearest rank). */
export const quantile = (sorted: readonly number[], q: number): number =>
  sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number);

const measure = async (d: Deployment, pulls: PullSpec[], requests: number): Promise<Record<string, number>> => {
  const next = resubmitBodies(BENCH_REPO, pulls);
  for (let i = 0; i < Math.ceil(requests / 10); i++) await postOk(d.url, '/submitPullRequest', d.token, next());
  // What the warm-up left for the projector or the engine to do is not the measured requests'.
  await sleep(1000);
  const head = await headOf(d.eventStore);
  const cpu = d.cpuSeconds();
  const cpuOf = d.cpuSecondsByProcess();
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = process.hrtime.bigint();
    await postOk(d.url, '/submitPullRequest', d.token, next());
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  // The projector (or the engine) handles the last events after their answers.
  await sleep(1000);
  const cpuMs = (d.cpuSeconds() - cpu) * 1000;
  // Distributed: which process the CPU per submit goes to.
  const byProcess = Object.entries(d.cpuSecondsByProcess()).map(([name, s]) => [
    `${name}CpuMsPerSubmit`,
    round(((s - (cpuOf[name] ?? 0)) * 1000) / requests),
  ]);
  const appended = Number((await headOf(d.eventStore)) - head);
  times.sort((a, b) => a - b);
  return {
    p50Ms: round(quantile(times, 0.5)),
    p99Ms: round(quantile(times, 0.99)),
    cpuMsPerSubmit: round(cpuMs / requests),
    eventsPerSubmit: round(appended / requests),
    ...(byProcess.length > 1 ? Object.fromEntries(byProcess) : {}),
  };
};

const oneShape = async (shape: Shape, prs: number, requests: number, progress: (line: string) => void): Promise<Record<string, number>> => {
  const work = await makeTempDir('railyard-bench-submit-');
  const redisUrl = redisUrlFromEnv();
  const namespace = uniqueNamespace('submit');
  let db: TestDatabase | undefined;
  let d: Deployment | undefined;
  try {
    const gitRoot = path.join(work, 'git');
    const pulls = Array.from({ length: prs }, (_, i) => ({ number: i + 1, base: 'main' }));
    await prepareRepository(gitRoot, ['main'], pulls);
    // BENCH_CPU_PROF=<dir>: every process writes a V8 CPU profile there on exit, as in the api benchmark.
    const prof = process.env.BENCH_CPU_PROF;
    const nodeFlags = prof ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(prof)}`] : undefined;
    const opts = { dataDir: path.join(work, 'data'), gitRoot, logDir: work, label: shape, nodeFlags };
    if (shape === 'embedded') d = await startEmbedded({ ...opts, engine: true });
    else {
      db = await createTestDatabase(postgresUrlFromEnv(), 'bench_scale_submit');
      d = await startDistributed({ ...opts, postgres: { url: db.url, schema: 'railyard' }, redisUrl, namespace });
    }
    const filled = Date.now();
    await createQueuesAndSubmit(d, pulls, { state: 'paused' });
    if (shape === 'embedded') await untilMergeabilityKnown(d, pulls, 30 * 60_000);
    progress(`submit: ${shape}, ${prs} PRs queued in ${Date.now() - filled} ms`);
    const row = await measure(d, pulls, requests);
    if (!d.alive()) throw new Error(`submit: a ${shape} process exited during the run (its log is in ${work})`);
    return row;
  } finally {
    await d?.stop();
    await db?.drop();
    if (shape === 'distributed') await dropNamespace(redisUrl, namespace);
    await removeTempDir(work);
  }
};

export const submitCurve = async (sizes: number[], progress: (line: string) => void): Promise<Record<string, number>[]> => {
  const requests = positiveIntFromEnv('BENCH_SUBMIT_REQUESTS', 300);
  const shapes = submitShapesFromEnv();
  const rows: Record<string, number>[] = [];
  for (const prs of sizes) {
    const embedded = shapes.includes('embedded') ? await oneShape('embedded', prs, requests, progress) : {};
    const distributed = shapes.includes('distributed') ? await oneShape('distributed', prs, requests, progress) : {};
    const row = { prs, requests, ...prefixed('embedded', embedded), ...prefixed('distributed', distributed) };
    progress(JSON.stringify(row));
    rows.push(row);
  }
  return rows;
};

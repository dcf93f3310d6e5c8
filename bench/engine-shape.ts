import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { commitOnBranch, createRepoWithCommits, makeTempDir, openPr, removeTempDir } from '@railyard/testkit';
import { startEmbedded } from './support/deployments';
import { postJson, postOk } from './support/http';
import { positiveIntFromEnv } from './support/settings';

/**
 * `npm run bench -- engine-shape`: the embedded server, its engine on the API's own thread (D331; the
 * worker thread it replaced is measured beside it in docs/benchmarks.md), on what people feel (issue
 * 31): the server's start, how long a queue takes to merge, and how getQueue answers a dashboard
 * polling it meanwhile. As shipped and with each speed workaround of VARIANTS switched off,
 * alternately (D333: SQLite's hand-over of committed rows). Each run gets a fresh data dir and repository with
 * BENCH_PRS PRs (16), a check of BENCH_CHECK_SECONDS (1) in the default sandbox, concurrency 4, every PR
 * submitted at once; getQueue is asked every 250 ms until the queue is empty.
 *
 *   BENCH_ROUNDS  rounds of every variant (2)
 */

const REPO = { host: 'git.bench', owner: 'acme', name: 'shape' };
const KEY = { repo: REPO, targetBranch: 'main' };
/** `main` as shipped (named as in the rows of the worker thread D331 replaced), then a workaround off. */
const VARIANTS = [
  { name: 'main', env: {} },
  { name: 'main/sqlite-hand-over-off', env: { RAILYARD_SQLITE_HAND_OVER: 'off' } },
];
type Variant = (typeof VARIANTS)[number];

const progress = (line: string): void => void process.stderr.write(`[bench engine-shape] ${line}\n`);
const round = (n: number, d = 1): number => Math.round(n * 10 ** d) / 10 ** d;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

const once = async (variant: Variant, prs: number, checkSeconds: number) => {
  const dir = await makeTempDir('railyard-bench-shape-');
  const gitRoot = path.join(dir, 'git');
  try {
    const config = `ci:\n  tests: "sleep ${checkSeconds}"\nmerge:\n  required_statuses: [tests]\n`;
    await createRepoWithCommits(gitRoot, REPO, { files: { 'README.md': '# shape\n', '.railyard.yml': config } });
    for (let n = 1; n <= prs; n++) {
      await commitOnBranch(gitRoot, REPO, { branch: `feature-${n}`, files: { [`f${n}.txt`]: `${n}\n` }, message: `Feature ${n}` });
      await openPr(gitRoot, { repo: REPO, number: n, head: `feature-${n}` });
    }
    const started = performance.now();
    const d = await startEmbedded({
      dataDir: path.join(dir, 'data'),
      gitRoot,
      logDir: dir,
      label: variant.name.replace('/', '-'),
      env: { ...variant.env, RAILYARD_CI_CONCURRENCY: '4' },
    });
    const startSeconds = (performance.now() - started) / 1000;
    try {
      await postOk(d.url, '/createQueue', d.token, { ...KEY, concurrency: 4 });
      const cpu0 = d.cpuSeconds();
      const t0 = performance.now();
      for (let n = 1; n <= prs; n++) await postOk(d.url, '/submitPullRequest', d.token, { ...KEY, pr: { number: n } });
      const left = new Set(Array.from({ length: prs }, (_, i) => i + 1));
      const ended: number[] = [];
      const answers: number[] = [];
      while (left.size > 0) {
        if (performance.now() - t0 > 600_000) throw new Error(`${variant.name}: ${left.size} PRs still queued after 10 minutes`);
        const asked = performance.now();
        const { status, text } = await postJson(d.url, '/getQueue', d.token, KEY);
        answers.push(performance.now() - asked);
        if (status !== 200) throw new Error(`getQueue answered ${status}`);
        const queued = new Set(
          (JSON.parse(text) as { enqueuedPullRequests: { number: number }[] }).enqueuedPullRequests.map((p) => p.number),
        );
        for (const n of [...left])
          if (!queued.has(n)) {
            left.delete(n);
            ended.push((performance.now() - t0) / 1000);
          }
        await sleep(250);
      }
      const drained = (performance.now() - t0) / 1000;
      let merged = 0;
      for (let n = 1; n <= prs; n++) {
        const pr = JSON.parse(await postOk(d.url, '/getSubmittedPullRequest', d.token, { ...KEY, pr: { number: n } })) as { state: string };
        if (pr.state === 'merged') merged++;
      }
      if (!d.alive()) throw new Error(`${variant.name}: the server exited during the run (its log is in ${dir})`);
      return {
        name: `engine-shape/${variant.name}`,
        prs,
        merged,
        checkSeconds,
        startSeconds: round(startSeconds, 2),
        drainedSeconds: round(drained),
        timeToMergeP50Seconds: round(percentile(ended, 50)),
        getQueueP50Ms: round(percentile(answers, 50)),
        getQueueP99Ms: round(percentile(answers, 99)),
        getQueueAsked: answers.length,
        serverCpuSeconds: round(d.cpuSeconds() - cpu0, 2),
      };
    } finally {
      await d.stop();
    }
  } finally {
    await removeTempDir(dir);
  }
};

export async function* run(): AsyncIterable<object> {
  const rounds = positiveIntFromEnv('BENCH_ROUNDS', 2);
  const prs = positiveIntFromEnv('BENCH_PRS', 16);
  const checkSeconds = positiveIntFromEnv('BENCH_CHECK_SECONDS', 1);
  for (let r = 1; r <= rounds; r++)
    for (const variant of VARIANTS) {
      progress(`round ${r}: ${variant.name}, ${prs} PRs`);
      yield { ...(await once(variant, prs, checkSeconds)), round: r };
    }
}

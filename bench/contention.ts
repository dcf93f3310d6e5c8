import path from 'node:path';
import {
  commitOnBranch,
  createRepoWithCommits,
  eventually,
  makeTempDir,
  openPr,
  processesNamed,
  processToken,
  removeTempDir,
} from '@railyard/testkit';
import { startEmbedded } from './support/deployments';
import { postOk } from './support/http';
import { measureOnce, type LoadResult } from './support/load';
import { positiveIntFromEnv } from './support/settings';

/**
 * `npm run bench -- contention`: the API of `npm start` while its local CI runs CPU-bound checks
 * started nicer by the runner (docs/decisions.md D330) or not at all, alternating. Each measurement
 * loads getQueue twice on one server: before any check runs, then while BENCH_CHECKS checks each burn
 * a core; the ratio of the two is what the checks cost the API, and a ratio needs no quiet machine.
 *
 *   BENCH_SECONDS      seconds of load per measurement (6)
 *   BENCH_ROUNDS       measurements per variant (2)
 *   BENCH_CHECKS       checks burning at once (2)
 *   BENCH_CONNECTIONS  concurrent connections (10)
 */

const REPO = { host: 'git.bench', owner: 'acme', name: 'contention' };
const KEY = { repo: REPO, targetBranch: 'main' };
/** The check: a busy loop named `token` (argv[0]), so the benchmark can see its checks running and leave none behind. */
const burnScript = (token: string): string => `exec -a ${token} node -e "const end = Date.now() + 600000; while (Date.now() < end) {}"\n`;
const RAILYARD_YML = 'ci:\n  burn: "bash ./burn.sh"\nmerge:\n  required_statuses: [burn]\n';

const progress = (line: string): void => void process.stderr.write(`[bench contention] ${line}\n`);
const round3 = (n: number): number => Math.round(n * 1000) / 1000;

interface Settings {
  seconds: number;
  rounds: number;
  checks: number;
  connections: number;
}

interface Variant {
  name: string;
  env: Record<string, string>;
}

/** How much nicer the runner starts the checks (D330): the shipped 10 against none, side by side. */
const VARIANTS: Variant[] = [
  { name: 'checks-niced-10', env: { RAILYARD_CI_NICENESS: '10' } },
  { name: 'checks-niced-0', env: { RAILYARD_CI_NICENESS: '0' } },
];

const measureAt = async (variant: Variant, s: Settings): Promise<{ quiet: LoadResult; checks: LoadResult }> => {
  const token = processToken('bench-burn');
  const burners = (): Promise<number[]> => processesNamed(token);
  const dir = await makeTempDir('railyard-bench-contention-');
  const gitRoot = path.join(dir, 'git');
  try {
    await createRepoWithCommits(gitRoot, REPO, {
      files: { 'README.md': '# contention\n', '.railyard.yml': RAILYARD_YML, 'burn.sh': burnScript(token) },
    });
    for (let n = 1; n <= s.checks; n++) {
      await commitOnBranch(gitRoot, REPO, { branch: `feature-${n}`, files: { [`f${n}.txt`]: `${n}\n` }, message: `Feature ${n}` });
      await openPr(gitRoot, { repo: REPO, number: n, head: `feature-${n}` });
    }
    const d = await startEmbedded({
      dataDir: path.join(dir, 'data'),
      gitRoot,
      logDir: dir,
      label: variant.name,
      env: {
        ...variant.env,
        // The checks' CPU is the point; a sandbox would only add its start-up (bench ci-isolation measures that).
        RAILYARD_CI_SANDBOX: 'off',
        RAILYARD_CI_CONCURRENCY: String(s.checks),
      },
    });
    try {
      await postOk(d.url, '/createQueue', d.token, { ...KEY, concurrency: s.checks });
      const body = JSON.stringify(KEY);
      const target = { url: `${d.url}/v1/getQueue`, headers: { 'x-api-token': d.token }, nextBody: () => body, cpuSeconds: d.cpuSeconds };
      await measureOnce(target, s.connections, 1);
      const quiet = await measureOnce(target, s.connections, s.seconds);
      for (let n = 1; n <= s.checks; n++) await postOk(d.url, '/submitPullRequest', d.token, { ...KEY, pr: { number: n } });
      await eventually(async () => (await burners()).length >= s.checks, `${s.checks} checks burning`, 60_000);
      const checks = await measureOnce(target, s.connections, s.seconds);
      if ((await burners()).length < s.checks)
        throw new Error('a check ended during the measurement: it measured less contention than it says');
      if (!d.alive()) throw new Error(`the server exited during the run (its log is in ${dir})`);
      return { quiet, checks };
    } finally {
      await d.stop();
      await eventually(async () => (await burners()).length === 0, 'the checks stopped with the server', 30_000);
    }
  } finally {
    await removeTempDir(dir);
  }
};

export async function* run(): AsyncIterable<object> {
  if (process.platform !== 'linux') throw new Error('contention: the checks’ session niceness (autogroup) is Linux-only');
  const s: Settings = {
    seconds: positiveIntFromEnv('BENCH_SECONDS', 6),
    rounds: positiveIntFromEnv('BENCH_ROUNDS', 2),
    checks: positiveIntFromEnv('BENCH_CHECKS', 2),
    connections: positiveIntFromEnv('BENCH_CONNECTIONS', 10),
  };
  for (let r = 1; r <= s.rounds; r++) {
    for (const variant of VARIANTS) {
      progress(`round ${r}: ${variant.name}`);
      const { quiet, checks } = await measureAt(variant, s);
      yield {
        name: `contention/getQueue/${variant.name}`,
        round: r,
        checksBurning: s.checks,
        quietReqPerSec: quiet.reqPerSec,
        quietP99Ms: quiet.p99Ms,
        reqPerSec: checks.reqPerSec,
        p50Ms: checks.p50Ms,
        p99Ms: checks.p99Ms,
        // What the running checks left of the API's throughput, on the same server a few seconds apart.
        ratio: quiet.reqPerSec > 0 ? round3(checks.reqPerSec / quiet.reqPerSec) : 0,
        errors: quiet.errors + checks.errors,
        non2xx: quiet.non2xx + checks.non2xx,
        connections: s.connections,
        seconds: s.seconds,
      };
    }
  }
}

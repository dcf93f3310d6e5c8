import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { LocalCiRunner, makeCheckout, removeCheckout, type SandboxMode } from '@railyard/ci';
import { SqliteEventStore } from '@railyard/eventstore';
import { localHostStatuses, runGit } from '@railyard/githost';
import { commitOnBranch, createRepoWithCommits, gitDirOf, makeTempDir, removeTempDir } from '@railyard/testkit';
import { positiveIntFromEnv } from './support/settings';

/**
 * `npm run bench -- ci-isolation [sandbox] [checkout]`: what the local CI's isolation costs per check.
 *
 *   ci-sandbox-overhead  trigger → final status of a `true` check, in bubblewrap, in the unshare
 *                        sandbox (what runs where bubblewrap is missing) and unsandboxed
 *                        (RAILYARD_CI_SANDBOX=off), in turn, concurrency 1; the ratios are of the
 *                        medians (a 2-core machine shared with other work drifts, turns do not)
 *   ci-checkout          make and remove one checkout of a repository of BENCH_CI_CHECKOUT_FILES files
 *                        (5000, 1–20 KiB of text each, packed): the runner's way (`git init`, the
 *                        objects through alternates, a detached checkout; `rm -r`) against
 *                        `git worktree add` + `worktree remove` + `worktree prune` (the runner's way
 *                        before checkouts stopped sharing git's worktree records), alternating
 *
 *   BENCH_CI_CHECKS           trivial checks per mode (30)
 *   BENCH_CI_CHECKOUTS        checkouts per method (10)
 *   BENCH_CI_CHECKOUT_FILES   files in the checked-out repository (5000)
 */

const REPO = { host: 'bench.local', owner: 'acme', name: 'isolation' };
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const progress = (line: string): void => void process.stderr.write(`[bench ci-isolation] ${line}\n`);
const median = (samples: number[]): number => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN;
const p99 = (samples: number[]): number =>
  [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))] ?? NaN;

const summary = (
  name: string,
  a: { label: string; samples: number[] },
  b: { label: string; samples: number[] },
  extra: object = {},
): object => ({
  name,
  n: a.samples.length,
  [`${a.label}P50Ms`]: round(median(a.samples)),
  [`${a.label}P99Ms`]: round(p99(a.samples)),
  [`${b.label}P50Ms`]: round(median(b.samples)),
  [`${b.label}P99Ms`]: round(p99(b.samples)),
  [`${a.label}Over${b.label[0]?.toUpperCase()}${b.label.slice(1)}`]: round(median(a.samples) / median(b.samples)),
  ...extra,
});

const sandboxOverhead = async (dir: string): Promise<object> => {
  const gitRoot = path.join(dir, 'git');
  await createRepoWithCommits(gitRoot, REPO, { files: { 'README.md': '# isolation\n' } });
  const sha = await commitOnBranch(gitRoot, REPO, { branch: 'bench', files: { '.railyard.yml': 'ci:\n  noop: "true"\n' } });
  const eventStore = new SqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  const statuses = localHostStatuses({ eventStore, gitRoot });
  const runnerFor = (mode: SandboxMode) =>
    new LocalCiRunner({
      gitRoot,
      dataDir: dir,
      statuses,
      publicUrl: () => 'http://127.0.0.1:1',
      concurrency: 1,
      sandbox: { mode, network: 'none' },
    });
  const modes = ['bwrap', 'unshare', 'off'] as const;
  const runners = { bwrap: runnerFor('bwrap'), unshare: runnerFor('unshare'), off: runnerFor('off') };
  const samples: Record<(typeof modes)[number], number[]> = { bwrap: [], unshare: [], off: [] };
  const checks = positiveIntFromEnv('BENCH_CI_CHECKS', 30);
  progress(`${checks} trivial checks in each mode`);
  try {
    for (let i = 0; i < checks; i++) {
      // Each mode goes first in turn, so a drift of the machine falls on all three alike.
      for (const mode of [...modes.slice(i % 3), ...modes.slice(0, i % 3)]) {
        const testRunId = randomUUID();
        const t0 = performance.now();
        await runners[mode].trigger({ repo: REPO, sha, branch: 'bench', testRunId, timeoutMinutes: 5 });
        await runners[mode].whenDone(testRunId);
        samples[mode].push(performance.now() - t0);
      }
      const last = (await statuses.list(REPO, sha)).find((s) => s.context === 'noop');
      if (last?.state !== 'success') throw new Error(`the check did not pass: ${JSON.stringify(last)}`);
    }
  } finally {
    await Promise.all(modes.map((m) => runners[m].close()));
    await statuses.close();
    await eventStore.close();
  }
  return summary(
    'ci-sandbox-overhead',
    { label: 'bwrap', samples: samples.bwrap },
    { label: 'off', samples: samples.off },
    {
      unshareP50Ms: round(median(samples.unshare)),
      unshareP99Ms: round(p99(samples.unshare)),
      unshareOverBwrap: round(median(samples.unshare) / median(samples.bwrap)),
    },
  );
};

/** Text that compresses like source code: lines of words and numbers, 1–20 KiB a file. */
const sourceLike = (i: number): string => {
  const lines = 20 + ((i * 7919) % 380);
  return Array.from(
    { length: lines },
    (_, l) => `export const value${i}_${l} = compute(${(i * 31 + l) % 997}, 'item-${l}'); // line ${l}\n`,
  ).join('');
};

const realisticRepo = async (dir: string, files: number): Promise<{ gitDir: string; sha: string }> => {
  const work = path.join(dir, 'work');
  for (let i = 0; i < files; i++) {
    const file = path.join(work, `pkg${i % 50}`, `dir${i % 7}`, `file${i}.ts`);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, sourceLike(i));
  }
  const who = { GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
  await runGit(null, ['init', '--quiet', '-b', 'main', work]);
  await runGit(path.join(work, '.git'), [`--work-tree=${work}`, 'add', '-A']);
  await runGit(path.join(work, '.git'), [`--work-tree=${work}`, 'commit', '--quiet', '-m', 'tree'], { env: who });
  const gitDir = gitDirOf(path.join(dir, 'git'), REPO);
  await runGit(null, ['clone', '--quiet', '--bare', work, gitDir]);
  await runGit(gitDir, ['gc', '--quiet']);
  await fs.rm(work, { recursive: true, force: true });
  return { gitDir, sha: (await runGit(gitDir, ['rev-parse', 'main'])).stdout.trim() };
};

const checkoutCost = async (dir: string): Promise<object> => {
  const files = positiveIntFromEnv('BENCH_CI_CHECKOUT_FILES', 5000);
  progress(`a repository of ${files} files`);
  const { gitDir, sha } = await realisticRepo(dir, files);
  const count = positiveIntFromEnv('BENCH_CI_CHECKOUTS', 10);
  const samples = { own: [] as number[], worktree: [] as number[] };
  progress(`${count} checkouts each way`);
  const ways = {
    own: async (target: string) => {
      await makeCheckout(gitDir, target, sha);
      await removeCheckout(target);
    },
    worktree: async (target: string) => {
      await runGit(gitDir, ['worktree', 'add', '--detach', '--force', target, sha]);
      await runGit(gitDir, ['worktree', 'remove', '--force', '--force', target]);
      await fs.rm(target, { recursive: true, force: true });
      await runGit(gitDir, ['worktree', 'prune']);
    },
  };
  for (let i = 0; i < count; i++) {
    for (const way of i % 2 === 0 ? (['own', 'worktree'] as const) : (['worktree', 'own'] as const)) {
      const t0 = performance.now();
      await ways[way](path.join(dir, 'checkouts', `${way}-${i}`, 'test'));
      samples[way].push(performance.now() - t0);
    }
  }
  const size = (await runGit(gitDir, ['count-objects', '-v'])).stdout;
  return summary(
    'ci-checkout',
    { label: 'own', samples: samples.own },
    { label: 'worktree', samples: samples.worktree },
    { files, packKiB: Number(/size-pack: (\d+)/.exec(size)?.[1]) },
  );
};

export const run = async function* (args: string[]): AsyncIterable<object> {
  const cases = args.length > 0 ? args : ['sandbox', 'checkout'];
  for (const name of cases) {
    const dir = await makeTempDir('railyard-bench-isolation-');
    try {
      if (name === 'sandbox') yield await sandboxOverhead(dir);
      else if (name === 'checkout') yield await checkoutCost(dir);
      else throw new Error(`unknown case "${name}" (sandbox, checkout)`);
    } finally {
      await removeTempDir(dir);
    }
  }
};

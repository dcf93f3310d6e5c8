import path from 'node:path';
import { buildTestBranch, DEFAULT_COMMITTER, MERGED_HEADS, runGit, StackPrefixes } from '@railyard/githost';
import { makeTempDir, removeTempDir, standInParentCounts } from '@railyard/testkit';
import { BENCH_REPO, prepareRepository } from './support/git-fixture';
import { positiveIntFromEnv } from './support/settings';

/**
 * `npm run bench -- stack-history [N]`: what building a run's test branch costs as a queue's history
 * grows. N PRs (default 1,000) squash-merge in turn, each build on the commit the one before wrote
 * (as after a landing), so every build continues one stack, as a queue that keeps merging does.
 * Two variants in one run, each on its own repository: the merged heads a build carries bounded
 * (StackPrefixes' default) and unbounded (what the engine did before). For each: ms per build over
 * the first and last BENCH_STACK_HISTORY_WINDOW builds (default 100), their ratio, and the parents of
 * the largest squash stand-in (the heads carried, plus the tip).
 */

const mean = (xs: number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

const variant = async (name: string, count: number, window: number, mergedHeads: number): Promise<object> => {
  const dir = await makeTempDir('railyard-bench-stack-history-');
  try {
    const pulls = Array.from({ length: count }, (_, i) => ({ number: i + 1, base: 'main' }));
    const root = path.join(dir, 'git');
    const { gitDir, mainSha } = await prepareRepository(root, ['main'], pulls);
    const refs = await runGit(gitDir, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/pull']);
    const heads = new Map(
      refs.stdout
        .trim()
        .split('\n')
        .map((l) => [Number(l.split('/')[2]), l.split(' ')[1] as string] as const),
    );
    const prefixes = new StackPrefixes(2_048, mergedHeads);
    const ms: number[] = [];
    let base = mainSha;
    for (const { number } of pulls) {
      const ctx = { gitDir, committer: DEFAULT_COMMITTER, prefixes, date: '1740830400 +0000' };
      const started = process.hrtime.bigint();
      const result = await buildTestBranch(ctx, {
        baseSha: base,
        stack: [{ number, headSha: heads.get(number) as string, title: `Feature ${number}` }],
        method: 'squash',
        testRunId: `run-${number}`,
      });
      ms.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (!result.ok) throw new Error(`PR #${number} did not apply: ${JSON.stringify(result.conflict)}`);
      base = result.sha;
    }
    const first = mean(ms.slice(0, window));
    const last = mean(ms.slice(-window));
    return {
      name: 'stack-history',
      variant: name,
      merges: count,
      mergedHeadsCarried: Number.isFinite(mergedHeads) ? mergedHeads : 'all',
      msPerBuildFirst: round(first),
      msPerBuildLast: round(last),
      lastOverFirst: round(last / first),
      mostStandInParents: Math.max(0, ...(await standInParentCounts(root, BENCH_REPO))),
    };
  } finally {
    await removeTempDir(dir);
  }
};

export async function* run(args: string[] = []): AsyncIterable<object> {
  const count = args[0] === undefined ? 1_000 : Number(args[0]);
  if (!Number.isSafeInteger(count) || count < 2) throw new Error(`stack-history takes a number of merges ≥ 2, not "${args[0]}"`);
  const window = Math.min(positiveIntFromEnv('BENCH_STACK_HISTORY_WINDOW', 100), Math.floor(count / 2));
  yield await variant('bounded', count, window, MERGED_HEADS);
  yield await variant('unbounded', count, window, Infinity);
}

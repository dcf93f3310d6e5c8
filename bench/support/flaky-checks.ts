import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RepoRef } from '@railyard/domain';
import { flakeDrawn, treeOfPrs } from '@railyard/simulator';
import type { CiPort, CiTrigger } from '@railyard/queue-driver';

/**
 * Flaky checks for `bench engine overhead` (BENCH_ENGINE_OVERHEAD_FLAKY): a fraction of check runs
 * fail spuriously. Whether one does is drawn per (tested tree, attempt) from a seed, where the attempt
 * counts the runs started on that tree (first run, then re-runs and restarts onto the same PRs). A tree
 * is the set of PRs a run tests, merged and stacked, so two engines that test the same PRs draw the
 * same flakes, whatever each did before, and so does the simulator (`flakeDraws: per-tree`, `bench
 * calibrate`): side-by-side runs are paired, and only the runs one starts and the other does not
 * draw apart. The bench's CI wrapper draws when a run is triggered and leaves a marker the check
 * reads: a file named after the run in `bench-flakes/` under the repository's objects,
 * which the sandbox mounts read-only at the path the checkout's `alternates` names.
 */

export const FLAKY_TEST = 'sometimes times out';
export const REPORTS_DIR = 'reports';

/**
 * The check: wait T seconds, fail when a PR file of the tree says FAIL (a real break) or when the
 * run's flake marker exists. With `reports`, it writes a JUnit file: one test per PR file, failing
 * for a break (a test first seen failing is new, so the failure is genuine; one test shared by every
 * break would fail often enough to be classified flaky itself), and the flaky test, failing on a flake.
 */
export const checkScript = (checkSeconds: number, reports: boolean): string => {
  const failure = '<failure message=\\"failed\\"/>';
  const junit = [
    `mkdir -p ${REPORTS_DIR}`,
    '{',
    '  echo "<testsuites><testsuite name=\\"bench\\">"',
    '  for f in f*.txt; do',
    `    r=""; grep -qs FAIL "$f" && r="${failure}"`,
    '    echo "<testcase classname=\\"bench\\" name=\\"content of $f\\">$r</testcase>"',
    '  done',
    `  r=""; [ "$flake" = 1 ] && r="${failure}"`,
    `  echo "<testcase classname=\\"bench\\" name=\\"${FLAKY_TEST}\\">$r</testcase>"`,
    '  echo "</testsuite></testsuites>"',
    `} > ${REPORTS_DIR}/junit.xml`,
  ];
  return [
    '#!/bin/sh',
    `sleep ${checkSeconds}`,
    'broken=0; flake=0',
    'cat f*.txt 2>/dev/null | grep -qs FAIL && broken=1',
    'objects=$(cat .git/objects/info/alternates)',
    '[ -e "$objects/bench-flakes/$RAILYARD_TEST_RUN_ID" ] && flake=1',
    ...(reports ? junit : []),
    '[ "$broken" = 0 ] && [ "$flake" = 0 ]',
    '',
  ].join('\n');
};

const run = promisify(execFile);

/**
 * The tree a commit holds, named by its PRs: each PR adds `f<n>.txt`, so the files name the merged PRs
 * and the stack, the way the simulator names a tree (`treeOfPrs`), and a seed draws alike in both.
 */
const treeOf = async (gitDir: string, sha: string): Promise<string> => {
  const names = (await run('git', ['--git-dir', gitDir, 'ls-tree', '--name-only', sha])).stdout.split('\n');
  return treeOfPrs(names.flatMap((name) => /^f(\d+)\.txt$/.exec(name)?.slice(1).map(Number) ?? []));
};

/** The PR a queue test branch names (`railyard-merge/pr-<n>/<id>`). */
const testedPr = (branch: string): number | undefined => {
  const n = /^railyard-merge\/pr-(\d+)\//.exec(branch)?.[1];
  return n === undefined ? undefined : Number(n);
};

export interface FlakeDraws {
  /** Runs started per tested tree, and those drawn to flake. */
  attempts: Map<string, number>;
  flaked: number;
  /** The test runs drawn to flake. */
  flakedRuns: Set<string>;
}

/** What a bench run's own events say about a run: its tested and stacked PRs, and how it ended. */
export interface RunEnd {
  testRunId: string;
  prs: readonly number[];
  failed: boolean;
}

/**
 * The flakes that cost a run: drawn on a run that then failed, and whose tree held no breaking PR
 * (that run would have passed). Without optimistic merging a PR merges only from a passing run of its
 * own, so each costs at least one more run: with the flake-free run's runs, the floor of the flaky
 * one. A flake drawn on a run cancelled first, or failing on a break anyway, costs nothing.
 */
export const costlyFlakes = (draws: FlakeDraws, runs: readonly RunEnd[], breaking: ReadonlySet<number>): number =>
  runs.filter((r) => r.failed && draws.flakedRuns.has(r.testRunId) && !r.prs.some((n) => breaking.has(n))).length;

/**
 * The CI with flakes drawn on each trigger: the marker is written before the check can start. Every
 * other call goes to the CI as it is (its status store too, which the bench's engine uses).
 */
export const withFlakes = <T extends CiPort>(
  ci: T,
  o: { gitDir: (repo: RepoRef) => string; seed: number; fraction: number },
): { ci: T; draws: FlakeDraws } => {
  const draws: FlakeDraws = { attempts: new Map(), flaked: 0, flakedRuns: new Set() };
  const trigger = async (req: CiTrigger): Promise<void> => {
    if (o.fraction > 0 && testedPr(req.branch) !== undefined) {
      const tree = await treeOf(o.gitDir(req.repo), req.sha);
      const attempt = (draws.attempts.get(tree) ?? 0) + 1;
      draws.attempts.set(tree, attempt);
      if (flakeDrawn(o.seed, tree, attempt, o.fraction)) {
        const dir = path.join(o.gitDir(req.repo), 'objects', 'bench-flakes');
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, req.testRunId), '');
        draws.flaked++;
        draws.flakedRuns.add(req.testRunId);
      }
    }
    await ci.trigger(req);
  };
  return { ci: { ...ci, trigger }, draws };
};

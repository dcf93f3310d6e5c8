import { execFileSync } from 'node:child_process';
import { branchSha, commitOnBranch, gitDirOf, openPr, treeOf } from '@railyard/testkit';
import { REPO, client } from './client';
import { startProcess, type RunningProcess } from './processes';
import { addRepo, makeWorld, TOKENS, type World } from './world';

/** A shell test that fails when any file of the tested tree contains the word FAIL. */
export const NO_FAIL_CHECK = '! grep -rqs --exclude=.railyard.yml FAIL .';

/** Puts a `.railyard.yml` on main: `checks` run by the local CI, all of them required. */
export const configureCi = async (world: World, checks: Record<string, string>): Promise<string> => {
  const lines = [
    'ci:',
    ...Object.entries(checks).map(([n, c]) => `  ${n}: ${JSON.stringify(c)}`),
    'merge:',
    '  required_statuses:',
    ...Object.keys(checks).map((n) => `    - ${n}`),
  ];
  return commitOnBranch(world.gitRoot, world.repo, {
    branch: 'main',
    files: { '.railyard.yml': `${lines.join('\n')}\n` },
    message: 'ci config',
  });
};

export const startEmbedded = (world: World, env: Record<string, string> = {}): Promise<RunningProcess> =>
  startProcess('apps/server/src/main.ts', { ...world.env, RAILYARD_ENGINE: 'on', RAILYARD_ENGINE_TICK_MS: '200', ...env });

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` returns a value other than undefined, or fails with the last value seen. */
export const eventually = async <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
};

export type Pr = { state: string; [k: string]: unknown };

/** The PR (of REPO unless `repo` is given) as getSubmittedPullRequest answers, once its state is one of `states`. */
export const prReaches = (url: string, number: number, states: string[], timeoutMs = 60_000, repo = REPO): Promise<Pr> =>
  eventually(
    `PR #${number} to reach ${states.join('|')}`,
    async () => {
      const res = await client(url, TOKENS.read, repo).getPr(number);
      return res.status === 200 && states.includes(res.body.state) ? (res.body as Pr) : undefined;
    },
    timeoutMs,
  );

export const mainSha = async (world: World): Promise<string> => (await branchSha(world.gitRoot, world.repo, 'main')) as string;
export const mainTree = async (world: World): Promise<string> => treeOf(world.gitRoot, world.repo, await mainSha(world));

/** A PR adding its own file with `content` (a FAIL in it fails NO_FAIL_CHECK for every run stacking it). */
export const openPrWithFile = async (world: World, number: number, content: string, from?: string): Promise<void> => {
  await commitOnBranch(world.gitRoot, world.repo, {
    branch: `pr-${number}`,
    files: { [`f${number}.txt`]: content },
    message: `PR ${number}`,
    ...(from ? { from } : {}),
  });
  await openPr(world.gitRoot, { repo: world.repo, number, head: `pr-${number}` });
};

export { addRepo, makeWorld, TOKENS, REPO, client };
export type { World, RunningProcess };

/** The queue's events as recorded, read straight from the embedded SQLite store (a second reader is fine under WAL). */
export const queueEvents = async (
  world: World,
  branch = 'main',
): Promise<{ type: string; data: Record<string, unknown>; actor: string }[]> => {
  const { createEventStore } = await import('@railyard/eventstore');
  const { queueIdOf, queueStreamOf } = await import('@railyard/domain');
  const store = await createEventStore({ kind: 'sqlite', file: `${world.dataDir}/events.sqlite` });
  try {
    const recorded = await store.readStream(queueStreamOf(queueIdOf(world.repo, branch)));
    return recorded.map((r) => ({ type: r.type, data: r.data as Record<string, unknown>, actor: r.metadata.actor }));
  } finally {
    await store.close();
  }
};

/** The subjects of main's first-parent history, newest first. */
export const mainLog = (world: World): string[] =>
  execFileSync('git', [`--git-dir=${gitDirOf(world.gitRoot, world.repo)}`, 'log', '--first-parent', '--format=%s', 'main'], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);

export const filesOnMain = (world: World): string[] =>
  execFileSync('git', [`--git-dir=${gitDirOf(world.gitRoot, world.repo)}`, 'ls-tree', '--name-only', 'main'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

export const treeOfCommit = (world: World, sha: string): string =>
  execFileSync('git', [`--git-dir=${gitDirOf(world.gitRoot, world.repo)}`, 'rev-parse', `${sha}^{tree}`], { encoding: 'utf8' }).trim();

/**
 * The invariants a merge queue owes: every PR merged once, and every merge left main holding a tree
 * that a passing run tested (the tree after that PR in the run's stack).
 */
export const checkMergeInvariants = (events: { type: string; data: Record<string, unknown> }[], world: World): void => {
  const succeeded = new Set(events.filter((e) => e.type === 'TestRunSucceeded').map((e) => e.data.testRunId as string));
  const stepTrees = new Map<string, Map<number, string>>();
  for (const e of events.filter((x) => x.type === 'TestRunStarted')) {
    const steps = (e.data.steps ?? []) as { prNumber: number; tree: string }[];
    stepTrees.set(e.data.testRunId as string, new Map(steps.map((s) => [s.prNumber, s.tree])));
  }
  const mergedPrs = events.filter((e) => e.type === 'PrMerged').map((e) => e.data.prNumber as number);
  expect(new Set(mergedPrs).size).toBe(mergedPrs.length);
  for (const e of events.filter((x) => x.type === 'PrMerged' && x.data.reason === 'MERGE_GRAPH_MERGE')) {
    const runId = e.data.testRunId as string;
    expect(succeeded.has(runId)).toBe(true);
    expect(treeOfCommit(world, e.data.mergeSha as string)).toBe(stepTrees.get(runId)?.get(e.data.prNumber as number));
  }
};

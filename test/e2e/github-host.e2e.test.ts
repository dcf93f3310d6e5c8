import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { FakeGithub, makeTempDir, removeTempDir } from '@railyard/testkit';
import { ciFailingOnFail, githubAppEnv } from './support/github-app';
import { startProcess, type RunningProcess } from './support/processes';
import { REDIS_URL, dropNamespace, uniqueNamespace } from './support/redis';
import { TOKENS, TOKEN_ENV } from './support/world';

// The merge queue on "GitHub": the embedded server (API, engine off) and a standalone engine process,
// both configured with the GitHub App of a fake GitHub; the fake's webhooks go to the API's
// /github/webhooks, which records them in the event store, where the standalone engine reads their
// hints (docs/decisions.md D152); the fake's CI reports a check run `ci` on every test branch.

jest.setTimeout(900_000);

const FULL = 'acme/widgets';
const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const TERMINAL = ['merged', 'failed', 'cancelled'];

let fake: FakeGithub;
let dir: string;
let api: RunningProcess;
let engine: RunningProcess | undefined;
const namespace = uniqueNamespace('github');
let env: Record<string, string>;
let nextPr = 1;

const post = (path: string, body: object, token = TOKENS.write) => request(api.url).post(`/v1${path}`).set('x-api-token', token).send(body);
const prState = async (number: number): Promise<string | undefined> => {
  const res = await post('/getSubmittedPullRequest', { repo: REPO, targetBranch: 'main', pr: { number } }, TOKENS.read);
  return res.status === 200 ? (res.body as { state: string }).state : undefined;
};
const eventually = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 240_000): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};
const ends = (number: number) =>
  eventually(`PR #${number} to end`, async () => {
    const s = await prState(number);
    return s !== undefined && TERMINAL.includes(s) ? s : undefined;
  });
const git = (...args: string[]): string => execFileSync('git', [`--git-dir=${fake.gitDir(FULL)}`, ...args], { encoding: 'utf8' }).trim();
const mainSubjects = (): string[] => git('log', '--first-parent', '--format=%s', 'main').split('\n');

/** Opens a PR adding its own file; `FAIL` in the content makes the fake CI fail its test branch. */
const openPr = async (content?: string): Promise<number> => {
  const n = nextPr++;
  await fake.commit({ repo: FULL, branch: `pr-${n}`, from: 'main', files: { [`f${n}.txt`]: content ?? `${n}\n` }, message: `PR ${n}` });
  const pr = await fake.openPullRequest({ repo: FULL, head: `pr-${n}`, base: 'main', title: `PR ${n}` });
  return pr.number;
};
const submit = async (number: number): Promise<void> => {
  const res = await post('/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number } });
  expect([number, res.status, res.body]).toEqual([number, 200, expect.anything()]);
};
const startEngine = async (): Promise<RunningProcess> =>
  startProcess(
    'apps/engine/src/main.ts',
    { ...env, RAILYARD_ENGINE_TICK_MS: '200', RAILYARD_ENGINE_LEASE_TTL_MS: '1500' },
    {
      listens: false,
      ready: /"message":"engine started"/,
    },
  );

beforeAll(async () => {
  dir = await makeTempDir('railyard-github-e2e-');
  fake = await FakeGithub.start({ behaviour: { mergedFlagDelayMs: 200 } });
  await fake.createRepo({ repo: FULL, files: { 'README.md': '# widgets\n' } });
  fake.allowBypass(FULL);
  // The required check comes from GitHub's branch rules (a ruleset), as a team on GitHub sets it up.
  fake.addRuleset(FULL, { branches: ['main'], requiredChecks: [{ context: 'ci' }] });
  fake.install({ account: 'acme' });
  ciFailingOnFail(fake, FULL);
  // The key as a file path, as an operator mounts it.
  const keyFile = path.join(dir, 'app.pem');
  writeFileSync(keyFile, fake.appPrivateKey, { mode: 0o600 });
  env = {
    RAILYARD_DATA_DIR: path.join(dir, 'data'),
    RAILYARD_API_TOKENS: TOKEN_ENV,
    RAILYARD_ENGINE: 'off',
    RAILYARD_REDIS_URL: REDIS_URL,
    RAILYARD_REDIS_NAMESPACE: namespace,
    ...githubAppEnv(fake, keyFile),
    RAILYARD_GITHUB_WRITE_INTERVAL_MS: '20',
    RAILYARD_ENGINE_VERIFY_MS: '5000',
  };
  api = await startProcess('apps/server/src/main.ts', env);
  fake.setWebhookUrl(`${api.url}/github/webhooks`);
  engine = await startEngine();
  // One failure is final here: a flake re-run on GitHub waits for the repository's CI to report again
  // on the same commit, which this CI does only when pushed (docs/github.md, "What the adapter does not do").
  expect((await post('/createQueue', { repo: REPO, targetBranch: 'main', flakeRetries: 0 }, TOKENS.admin)).status).toBe(200);
});

afterAll(async () => {
  await engine?.stop().catch(() => undefined);
  await api?.stop().catch(() => undefined);
  await dropNamespace(namespace);
  const violations = fake ? [...fake.violations] : [];
  await fake?.webhooks.settled();
  await fake?.stop();
  await removeTempDir(dir);
  expect(violations).toEqual([]);
});

describe('the merge queue on GitHub (fake GitHub, real processes)', () => {
  it('when PRs are queued, then each good one lands as a fast-forward of main to its tested commit, shows merged, and a failing one fails', async () => {
    const prs = [await openPr(), await openPr(), await openPr('FAIL\n'), await openPr()];
    for (const n of prs) await submit(n);
    const states = await Promise.all(prs.map(ends));
    expect(states).toEqual(['merged', 'merged', 'failed', 'merged']);
    // Every landing was a fast-forward to a commit CI passed on a test branch.
    const landed = git('rev-list', '--first-parent', '--max-count=3', 'main').split('\n');
    for (const sha of landed) expect(fake.checkRuns(FULL, sha).some((r) => r.name === 'ci' && r.conclusion === 'success')).toBe(true);
    for (const n of [1, 2, 4]) {
      expect(mainSubjects().filter((s) => s === `PR ${n} (#${n})`)).toHaveLength(1);
      // Squashed: GitHub does not flag it merged, so Railyard closed it with a comment linking the landed commit.
      expect(fake.pullRequest(FULL, n).state).toBe('closed');
      expect(
        fake
          .comments(FULL, n)
          .map((c) => c.body)
          .join('\n'),
      ).toMatch(/Merged by Railyard as .*\/commit\/[0-9a-f]{40}/);
    }
    expect(fake.pullRequest(FULL, 3).state).toBe('open');
    expect(await eventually('test branches cleaned up', async () => ((await listTestBranches()).length === 0 ? true : undefined))).toBe(
      true,
    );
  });

  it('when main moves in the instant of a landing (GitHub answers 422 not a fast forward), then the engine plans again and lands without forcing', async () => {
    let raced = 0;
    const patches: boolean[] = [];
    fake.faults.inject({
      operation: 'git/update-ref',
      kind: 'not-fast-forward',
      times: Infinity,
      when: (r) => {
        if (r.params.ref !== 'heads/main') return false;
        patches.push((r.body as { force?: boolean }).force === true);
        if (raced === 0) {
          raced++;
          // Someone pushes to main just before GitHub handles the PATCH: it really is not a fast-forward now.
          const main = git('rev-parse', 'main');
          const hotfix = git('commit-tree', `${main}^{tree}`, '-p', main, '-m', 'hotfix pushed during a landing');
          git('update-ref', 'refs/heads/main', hotfix, main);
          void fake.refsChanged(FULL);
        }
        return false;
      },
    });
    const n = await openPr();
    await submit(n);
    expect(await ends(n)).toBe('merged');
    expect(raced).toBe(1);
    expect(patches.length).toBeGreaterThanOrEqual(2);
    expect(patches.every((forced) => !forced)).toBe(true);
    expect(mainSubjects()).toEqual(expect.arrayContaining(['hotfix pushed during a landing', `PR ${n} (#${n})`]));
    fake.faults.clear();
  });

  // Ten PRs, one at a time: the limits (seven answers in all) land in the middle of the queue with PRs
  // waiting behind them; twenty spent a minute on the same moments (D302).
  it('when GitHub imposes a secondary rate limit in the middle of a queue of 10 PRs, then every PR still merges and none fails for it', async () => {
    const prs: number[] = [];
    for (let i = 0; i < 10; i++) prs.push(await openPr());
    for (const n of prs.slice(0, 3)) await submit(n);
    await eventually('the first PR to merge', async () => ((await prState(prs[0] as number)) === 'merged' ? true : undefined));
    const limits = [
      fake.faults.inject({ operation: 'repos/merge', kind: 'secondary-rate-limit', retryAfterSeconds: 1, times: 3 }),
      fake.faults.inject({ operation: 'git/update-ref', kind: 'secondary-rate-limit', status: 429, retryAfterSeconds: 1, times: 2 }),
      fake.faults.inject({ operation: 'pulls/get', kind: 'secondary-rate-limit', retryAfterSeconds: 1, times: 2 }),
    ];
    for (const n of prs.slice(3)) await submit(n);
    const states = await Promise.all(prs.map(ends));
    expect(states).toEqual(prs.map(() => 'merged'));
    expect(limits.map((l) => l.hits)).toEqual([3, 2, 2]);
    for (const n of prs) expect(mainSubjects().filter((s) => s === `PR ${n} (#${n})`)).toHaveLength(1);
  });

  it('when the engine is killed with -9 between landing a PR and recording it, then after a restart the PR ends merged, landed once', async () => {
    const n = await openPr();
    let killed = false;
    fake.faults.inject({
      operation: 'git/update-ref',
      kind: 'not-fast-forward',
      times: Infinity,
      when: (r) => {
        // The PATCH that lands the PR goes through; the engine dies before it hears the answer.
        if (r.params.ref === 'heads/main' && !killed && engine) {
          killed = true;
          engine.proc.kill('SIGKILL');
        }
        return false;
      },
    });
    await submit(n);
    await eventually('the landing', async () => (killed ? true : undefined));
    await engine?.kill9();
    // GitHub carries out the PATCH although the caller is gone.
    await eventually('the PR on main', async () => (mainSubjects().includes(`PR ${n} (#${n})`) ? true : undefined), 30_000);
    expect(await prState(n)).not.toBe('merged');
    engine = await startEngine();
    expect(await ends(n)).toBe('merged');
    expect(mainSubjects().filter((s) => s === `PR ${n} (#${n})`)).toHaveLength(1);
    expect(fake.pullRequest(FULL, n).state).toBe('closed');
    expect(fake.comments(FULL, n)).toHaveLength(1);
    fake.faults.clear();
  });
});

const listTestBranches = async (): Promise<string[]> =>
  git('for-each-ref', '--format=%(refname)', 'refs/heads/railyard-merge/')
    .split('\n')
    .filter((l) => l.length > 0);

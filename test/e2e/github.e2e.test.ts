import { execFileSync } from 'node:child_process';
import { FakeGithub, makeTempDir, type CiOutcome } from '@railyard/testkit';
import request from 'supertest';
import { githubAppEnv, stopServerAndFake } from './support/github-app';
import { startProcess, type RunningProcess } from './support/processes';

/**
 * The README's "Use it with GitHub" walk-through on real processes: the embedded server (a real OS
 * process) configured as a GitHub App against the fake GitHub, driven only by what happens on
 * "GitHub" — the App's installation, comments, CI reports, pushes — as a team would drive it.
 */

jest.setTimeout(300_000);

const REPO = 'acme/widgets';
const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const TOKEN = 'admin-secret-0123456789abcdef';
const PUBLIC = 'http://railyard.example';
const CI_URL = 'https://ci.example/widgets/build';

let dir: string;
let fake: FakeGithub;
let server: RunningProcess;
/** What the CI answers per test branch; branches it was asked to build, in order. */
const outcomes = new Map<number, (branch: string) => CiOutcome>();
const built: string[] = [];

const until = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}\n${server.output().split('\n').slice(-30).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const api = (path: string, body: object) => request(server.url).post(`/v1${path}`).set('x-api-token', TOKEN).send(body);
const prState = async (number: number): Promise<string | undefined> =>
  ((await api('/getSubmittedPullRequest', { repo, targetBranch: 'main', pr: { number } })).body as { state?: string }).state;
const checkRun = (sha: string) => fake.checkRuns(REPO, sha).find((r) => r.name === 'Railyard (main)');
const reactions = (number: number, id: number) =>
  fake
    .comments(REPO, number)
    .filter((c) => c.id === id)
    .flatMap((c) => c.reactions.map((r) => r.content));
const testBranches = (number: number): string[] =>
  execFileSync(
    'git',
    ['--git-dir', fake.gitDir(REPO), 'for-each-ref', '--format=%(refname:short)', `refs/heads/railyard-merge/pr-${number}/`],
    {
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter(Boolean);

const openPr = async (n: number) => {
  await fake.commit({ repo: REPO, branch: `feature-${n}`, files: { [`f${n}.txt`]: `${n}\n` }, message: `Feature ${n}`, user: 'alice' });
  return fake.openPullRequest({ repo: REPO, head: `feature-${n}`, title: `Feature ${n}`, user: 'alice' });
};

/** Comments `/railyard merge` and waits for the +1. */
const queueByComment = async (n: number): Promise<void> => {
  const comment = fake.comment(REPO, n, 'alice', '/railyard merge');
  await until(() => reactions(n, comment.id).includes('+1'), `the /railyard merge comment on #${n} gets +1`);
};

beforeAll(async () => {
  dir = await makeTempDir('railyard-github-e2e-');
  fake = await FakeGithub.start({ behaviour: { mergedFlagDelayMs: 200 } });
  await fake.createRepo({ repo: REPO, files: { 'README.md': '# widgets\n' } });
  fake.setCollaborator(REPO, 'alice', 'write');
  // The team's CI builds every branch Railyard pushes and reports a check run, as GitHub Actions would.
  fake.ci.configure(REPO, {
    branches: (branch) => branch.startsWith('railyard-merge/pr-'),
    checks: [
      {
        name: 'ci/test',
        detailsUrl: CI_URL,
        delayMs: 100,
        outcome: ({ branch }) => {
          built.push(branch);
          const n = Number(/^railyard-merge\/pr-(\d+)\//.exec(branch)?.[1]);
          return outcomes.get(n)?.(branch) ?? 'success';
        },
      },
    ],
  });
  server = await startProcess('apps/server/src/main.ts', {
    RAILYARD_DATA_DIR: dir,
    RAILYARD_API_TOKENS: `admin:${TOKEN}:admin`,
    ...githubAppEnv(fake),
    RAILYARD_PUBLIC_URL: PUBLIC,
    RAILYARD_ENGINE_TICK_MS: '200',
    RAILYARD_ENGINE_VERIFY_MS: '5000',
  });
  fake.setWebhookUrl(`${server.url}/github/webhooks`);
});

afterAll(() => stopServerAndFake({ fake, server, dir }));

describe('Railyard as a GitHub App, on real processes against the fake GitHub', () => {
  it('when the App is installed and a writer comments /railyard merge, then CI runs on the test branch, main fast-forwards to the tested commit, the PR is merged and the check run says so', async () => {
    fake.install({ account: 'acme' });
    await fake.webhooks.settled();
    expect(fake.webhooks.deliveries.find((d) => d.event === 'installation')?.attempts.at(-1)?.status).toBe(200);
    expect(
      (await api('/createQueue', { repo, targetBranch: 'main', mergeMethod: 'merge_commit', requiredStatuses: ['ci/test'] })).status,
    ).toBe(200);

    const pr = await openPr(1);
    const head = pr.headSha;
    await queueByComment(1);
    await until(() => checkRun(head) !== undefined, 'the check run appears on the PR');
    await until(async () => (await prState(1)) === 'merged', 'PR #1 is merged');

    const main = await fake.branchSha(REPO, 'main');
    // The tested commit is what landed: CI's passing check run is on the very commit main now points at.
    expect(fake.checkRuns(REPO, main ?? '').find((r) => r.name === 'ci/test')?.conclusion).toBe('success');
    expect(built.some((b) => b.startsWith('railyard-merge/pr-1/'))).toBe(true);
    await until(() => fake.pullRequest(REPO, 1).merged, 'GitHub shows PR #1 merged');
    await until(() => checkRun(head)?.conclusion === 'success', 'the check run says merged');
    expect(checkRun(head)?.output.title).toBe('Merged');
    expect(checkRun(head)?.detailsUrl).toBe(`${PUBLIC}/repos/github.com/acme/widgets/pulls/1`);
    // The answers were a reaction and the check run: no comment from Railyard.
    expect(fake.comments(REPO, 1).filter((c) => c.viaAppId === fake.appId)).toEqual([]);
  });

  it('when CI fails on a queued PR, then it is re-run once on GitHub and the check run says failed with the failing check’s link', async () => {
    outcomes.set(2, () => 'failure');
    const pr = await openPr(2);
    await queueByComment(2);
    await until(async () => (await prState(2)) === 'failed', 'PR #2 fails');
    await until(() => checkRun(pr.headSha)?.conclusion === 'failure', 'the check run says failed');
    expect(checkRun(pr.headSha)?.output.title).toMatch(/^Failed: /);
    // flakeRetries 1 (the default): the failure was re-run through its check suite, and the link is the re-run's.
    expect(checkRun(pr.headSha)?.output.summary).toContain(`[ci/test](${CI_URL}?attempt=2)`);
    expect(fake.pullRequest(REPO, 2).merged).toBe(false);
  });

  it('when a queued PR is pushed to while it is tested, then it is cancelled and its check run says why', async () => {
    outcomes.set(3, () => 'stuck');
    const pr = await openPr(3);
    const queuedHead = pr.headSha;
    await queueByComment(3);
    await until(async () => (await prState(3)) === 'testing', 'PR #3 is under test');
    await fake.commit({ repo: REPO, branch: 'feature-3', files: { 'f3.txt': 'changed\n' }, user: 'alice' });
    await until(async () => (await prState(3)) === 'cancelled', 'PR #3 is cancelled');
    await until(() => checkRun(queuedHead)?.conclusion === 'cancelled', 'the check run says cancelled');
    expect(checkRun(queuedHead)?.output.title).toMatch(/^Cancelled: the pull request was pushed to/);
  });

  it('when someone pushes to the queued base during a run, then the run restarts on the new base and the PR merges on top of it', async () => {
    // The first run hangs, so the push to main comes while it is testing; the restarted run passes.
    outcomes.set(4, () => (built.filter((b) => b.startsWith('railyard-merge/pr-4/')).length > 1 ? 'success' : 'stuck'));
    const pr = await openPr(4);
    await queueByComment(4);
    await until(async () => (await prState(4)) === 'testing', 'PR #4 is under test');
    const firstRuns = testBranches(4);
    expect(firstRuns).toHaveLength(1);
    await fake.commit({ repo: REPO, branch: 'main', files: { 'hotfix.txt': 'hotfix\n' }, message: 'Hotfix pushed by hand' });
    const pushed = await fake.branchSha(REPO, 'main');
    await until(() => built.filter((b) => b.startsWith('railyard-merge/pr-4/')).length >= 2, 'a second run of PR #4 is built');
    await until(async () => (await prState(4)) === 'merged', 'PR #4 merges after its restart');
    const main = await fake.branchSha(REPO, 'main');
    const log = execFileSync('git', ['--git-dir', fake.gitDir(REPO), 'rev-list', main ?? ''], { encoding: 'utf8' });
    expect(log.split('\n')).toContain(pushed);
    await until(() => checkRun(pr.headSha)?.output.title === 'Merged', 'the check run of #4 says merged');
  });
});

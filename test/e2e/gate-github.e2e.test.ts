import { execFileSync } from 'node:child_process';
import request from 'supertest';
import { FakeGithub, makeTempDir } from '@railyard/testkit';
import { commitSaysFail, githubAppEnv, stopServerAndFake } from './support/github-app';
import { startProcess, type RunningProcess } from './support/processes';
import { TOKENS, TOKEN_ENV } from './support/world';

// On GitHub the branch's rules are the repository owner's gate: a PR's .railyard.yml cannot lower
// them, and main's own file only adds to them (docs/security.md, "Trust model"). The fake's ruleset
// requires ci/test; its CI fails ci/test on a tree saying FAIL and always passes ci/lint; the App
// may bypass the rules, so nothing but Railyard's own gate stands between a PR and main.

jest.setTimeout(300_000);

const FULL = 'acme/widgets';
const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const TERMINAL = ['merged', 'failed', 'cancelled'];

let dir: string;
let fake: FakeGithub;
let server: RunningProcess;
let nextPr = 1;

const post = (path: string, body: object, token = TOKENS.write) =>
  request(server.url).post(`/v1${path}`).set('x-api-token', token).send(body);
const ends = async (number: number): Promise<string> => {
  for (let i = 0; i < 1200; i++) {
    const res = await post('/getSubmittedPullRequest', { repo: REPO, targetBranch: 'main', pr: { number } }, TOKENS.read);
    const state = (res.body as { state?: string }).state;
    if (state !== undefined && TERMINAL.includes(state)) return state;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`PR #${number} did not end\n${server.output().split('\n').slice(-30).join('\n')}`);
};
const mainFiles = (): string[] =>
  execFileSync('git', [`--git-dir=${fake.gitDir(FULL)}`, 'ls-tree', '--name-only', 'main'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

/** Opens and queues a PR with `files`, and answers how it ended. */
const queuePr = async (files: Record<string, string>): Promise<{ number: number; state: string }> => {
  const n = nextPr++;
  await fake.commit({ repo: FULL, branch: `pr-${n}`, from: 'main', files, message: `PR ${n}` });
  const pr = await fake.openPullRequest({ repo: FULL, head: `pr-${n}`, base: 'main', title: `PR ${n}` });
  expect((await post('/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: pr.number } })).status).toBe(200);
  return { number: pr.number, state: await ends(pr.number) };
};

/** Main's head has a passing ci/test: whatever landed was tested by the check the ruleset requires. */
const mainPassesTheRuleset = async (): Promise<void> => {
  const main = (await fake.branchSha(FULL, 'main')) as string;
  expect(commitSaysFail(fake, FULL, main)).toBe(false);
};

beforeAll(async () => {
  dir = await makeTempDir('railyard-gate-github-');
  fake = await FakeGithub.start({ behaviour: { mergedFlagDelayMs: 200 } });
  await fake.createRepo({ repo: FULL, files: { 'README.md': '# widgets\n' } });
  fake.allowBypass(FULL);
  fake.addRuleset(FULL, { branches: ['main'], requiredChecks: [{ context: 'ci/test' }] });
  fake.install({ account: 'acme' });
  fake.ci.configure(FULL, {
    branches: (b) => b.startsWith('railyard-merge/'),
    checks: [
      { name: 'ci/test', delayMs: 100, outcome: ({ sha }) => (commitSaysFail(fake, FULL, sha) ? 'failure' : 'success') },
      { name: 'ci/lint', delayMs: 100, outcome: () => 'success' },
    ],
  });
  server = await startProcess('apps/server/src/main.ts', {
    RAILYARD_DATA_DIR: dir,
    RAILYARD_API_TOKENS: TOKEN_ENV,
    ...githubAppEnv(fake),
    RAILYARD_ENGINE_TICK_MS: '200',
    RAILYARD_ENGINE_VERIFY_MS: '5000',
  });
  fake.setWebhookUrl(`${server.url}/github/webhooks`);
  expect((await post('/createQueue', { repo: REPO, targetBranch: 'main', flakeRetries: 0 }, TOKENS.admin)).status).toBe(200);
});

afterAll(() => stopServerAndFake({ fake, server, dir }));

describe('GitHub’s branch rules hold against the repository’s files', () => {
  it('when a good PR is queued, then it merges (the control)', async () => {
    expect((await queuePr({ 'good.txt': 'fine\n' })).state).toBe('merged');
    expect(mainFiles()).toContain('good.txt');
    await mainPassesTheRuleset();
  });

  it('when a failing PR adds a .railyard.yml requiring only ci/lint, then the ruleset’s ci/test still decides and fails it', async () => {
    const pr = await queuePr({ 'broken.txt': 'FAIL\n', '.railyard.yml': 'merge:\n  required_statuses: [ci/lint]\n' });
    expect(pr.state).toBe('failed');
    expect(mainFiles()).not.toContain('broken.txt');
    expect(mainFiles()).not.toContain('.railyard.yml');
    await mainPassesTheRuleset();
  });

  it('when main’s own .railyard.yml requires only ci/lint, then it adds to the ruleset, and a failing PR still fails on ci/test', async () => {
    await fake.commit({
      repo: FULL,
      branch: 'main',
      files: { '.railyard.yml': 'merge:\n  required_statuses: [ci/lint]\n' },
      message: 'config',
    });
    const pr = await queuePr({ 'broken2.txt': 'FAIL\n' });
    expect(pr.state).toBe('failed');
    expect(mainFiles()).not.toContain('broken2.txt');
    await mainPassesTheRuleset();
    expect((await queuePr({ 'good2.txt': 'fine\n' })).state).toBe('merged');
  });
});

import { execFileSync } from 'node:child_process';
import request from 'supertest';
import { branchSha, commitOnBranch, gitDirOf } from '@railyard/testkit';
import { checkGate } from './support/check-gate';
import { REPO } from './support/client';
import { eventually, filesOnMain, prReaches, queueEvents, startEmbedded } from './support/engine-world';
import { openApiContract } from './support/openapi-contract';
import type { RunningProcess } from './support/processes';
import { openPrWithFiles } from './support/slow-check';
import { makeWorld, TOKENS, type World } from './support/world';

// The gate holds against the PR it gates (docs/security.md, "Trust model"): every PR below tries to
// open its own gate with what a PR and a write token control, on the local git host with the local
// CI. Each one breaks main's check (a file saying FAIL), fails, and leaves nothing on main.

jest.setTimeout(300_000);

/** A check holding slow.txt waits until the test has seen its forgery recorded, so the forgery comes first. */
const forgeryRecorded = checkGate('the forged status was recorded');
/** Fails on a tree holding the word FAIL. */
const CHECK = `if [ -f slow.txt ]; then ${forgeryRecorded.wait}; fi; ! grep -rqs --exclude=.railyard.yml --exclude-dir=.trunk FAIL .`;
const BASE_CONFIG = `ci:\n  test: ${JSON.stringify(CHECK)}\n  lint: "true"\nmerge:\n  required_statuses: [test]\n`;
const TERMINAL = ['merged', 'failed', 'cancelled'];

let world: World;
let server: RunningProcess;
let contract: ReturnType<typeof openApiContract>;

const post = async (path: string, body: object, token = TOKENS.write) => {
  const res = await request(server.url).post(`/v1${path}`).set('x-api-token', token).send(body);
  contract.check('post', `/v1${path}`, res);
  return res;
};
const admin = (path: string, body: object) => post(path, { repo: REPO, targetBranch: 'main', ...body }, TOKENS.admin);
const getPr = async (n: number) => (await post('/getSubmittedPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: n } })).body;
const git = (...args: string[]): string =>
  execFileSync('git', [`--git-dir=${gitDirOf(world.gitRoot, REPO)}`, ...args], { encoding: 'utf8' });

/** PR `n`: a file saying FAIL, which main's check fails on, with whatever else it tries. */
const openBrokenPr = (n: number, files: Record<string, string> = {}) =>
  openPrWithFiles(world, n, { [`broken${n}.txt`]: 'FAIL\n', ...files });

const submit = async (n: number): Promise<void> => {
  expect((await post('/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: n } })).status).toBe(200);
};

/** The PR ended failed and main holds nothing of it: neither its file nor its configuration. */
const failedWithNothingOnMain = async (n: number): Promise<void> => {
  expect((await prReaches(server.url, n, TERMINAL, 120_000)).state).toBe('failed');
  expect(filesOnMain(world)).not.toContain(`broken${n}.txt`);
  expect(git('show', 'main:.railyard.yml')).toBe(BASE_CONFIG);
  expect(filesOnMain(world)).not.toContain('.trunk');
};

/** The test branch of PR n's first run, once the engine built it. */
const testBranchSha = async (n: number): Promise<string> => {
  for (let i = 0; i < 600; i++) {
    const refs = git('for-each-ref', '--format=%(objectname)', `refs/heads/railyard-merge/pr-${n}/`).trim();
    if (refs) return refs.split('\n')[0] as string;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no test branch for PR #${n}`);
};

beforeAll(async () => {
  world = await makeWorld();
  await commitOnBranch(world.gitRoot, REPO, { branch: 'main', files: { '.railyard.yml': BASE_CONFIG }, message: 'CI config' });
  server = await startEmbedded(world);
  contract = openApiContract((await request(server.url).get('/openapi.json').expect(200)).body);
  // One failure is final: a flake re-run would only judge the same commit again.
  expect((await admin('/createQueue', { flakeRetries: 0 })).status).toBe(200);
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('a PR cannot choose its own checks (the base’s configuration gates)', () => {
  it('when a good PR is queued, then it merges (the control)', async () => {
    await openPrWithFiles(world, 1, { 'good1.txt': 'fine\n' });
    await submit(1);
    expect((await prReaches(server.url, 1, TERMINAL, 120_000)).state).toBe('merged');
    expect(filesOnMain(world)).toContain('good1.txt');
  });

  it('when a PR breaks the check and rewrites ci.test to "true", then main’s check fails it and its explanation says its config was not used', async () => {
    await openBrokenPr(2, { '.railyard.yml': BASE_CONFIG.replace(JSON.stringify(CHECK), '"true"') });
    await submit(2);
    await failedWithNothingOnMain(2);
    expect((await getPr(2)).notes).toEqual([
      {
        kind: 'config_not_used',
        message: expect.stringMatching(/^this PR changes \.railyard\.yml; run \S+ tested it with main's configuration/),
        files: ['.railyard.yml'],
      },
    ]);
  });

  it('when a PR renames the required statuses to [lint], then main’s [test] still decides and fails it', async () => {
    await openBrokenPr(3, { '.railyard.yml': BASE_CONFIG.replace('required_statuses: [test]', 'required_statuses: [lint]') });
    await submit(3);
    await failedWithNothingOnMain(3);
  });

  it('when a PR removes merge: and adds a .trunk/trunk.yaml naming [lint], then main’s [test] still decides and fails it', async () => {
    await openBrokenPr(4, {
      '.railyard.yml': BASE_CONFIG.replace(/merge:[\s\S]*$/, ''),
      '.trunk/trunk.yaml': 'version: 0.1\nmerge:\n  required_statuses:\n    - lint\n',
    });
    await submit(4);
    await failedWithNothingOnMain(4);
    expect((await getPr(4)).notes?.[0]?.files).toEqual(['.railyard.yml', '.trunk/trunk.yaml']);
  });

  it('when the queue requires [test] and a PR rewrites the test command, then main’s command runs and fails it', async () => {
    expect((await admin('/updateQueue', { requiredStatuses: ['test'] })).status).toBe(200);
    try {
      await openBrokenPr(5, { '.railyard.yml': BASE_CONFIG.replace(JSON.stringify(CHECK), '"exit 0"') });
      await submit(5);
      await failedWithNothingOnMain(5);
    } finally {
      expect((await admin('/updateQueue', { deleteRequiredStatuses: true })).status).toBe(200);
    }
  });
});

describe('a write token cannot forge the verdict (who reports a status is pinned)', () => {
  it('when a token posts test: success on the test branch while the check runs, then it is recorded, not counted, and the check fails the PR', async () => {
    await openBrokenPr(6, { 'slow.txt': 'take a while\n' });
    await submit(6);
    const sha = await testBranchSha(6);
    expect((await post('/setCommitStatus', { repo: REPO, sha, context: 'test', state: 'success' })).status).toBe(200);
    await eventually('the forged status to be recorded', async () =>
      (await queueEvents(world)).some((e) => e.type === 'TestRunStatusNotCounted') ? true : undefined,
    );
    forgeryRecorded.open(world);
    await failedWithNothingOnMain(6);
    const ignored = (await queueEvents(world)).filter((e) => e.type === 'TestRunStatusNotCounted');
    expect(ignored.map((e) => [e.data.context, e.data.state, e.data.reporter, e.data.why])).toEqual([
      ['test', 'success', 'token:ci', 'LOCAL_CI_ONLY'],
    ]);
    expect((await getPr(6)).notes).toContainEqual({
      kind: 'status_not_counted',
      message: expect.stringContaining('`test` success from token "ci"'),
      checks: ['test'],
    });
  });

  it('when a token posts test: success on the head of a PR that direct merge could take, then the PR takes a run and fails', async () => {
    expect((await admin('/updateQueue', { directMergeMode: 'always' })).status).toBe(200);
    try {
      await openBrokenPr(7);
      const head = (await branchSha(world.gitRoot, REPO, 'pr-7')) as string;
      for (const context of ['test', 'lint'])
        expect((await post('/setCommitStatus', { repo: REPO, sha: head, context, state: 'success' })).status).toBe(200);
      await submit(7);
      await failedWithNothingOnMain(7);
      const events = await queueEvents(world);
      expect(events.filter((e) => e.type === 'TestRunStarted' && (e.data.prNumbers as number[]).includes(7))).toHaveLength(1);
      expect(events.filter((e) => e.type === 'PrMerged' && e.data.prNumber === 7)).toEqual([]);
    } finally {
      expect((await admin('/updateQueue', { directMergeMode: 'off' })).status).toBe(200);
    }
  });
});

describe('a configuration change takes effect once merged', () => {
  it('when a PR tightens the check, then it merges under main’s check, and the next PR is judged by the new one', async () => {
    const stricter = BASE_CONFIG.replace(JSON.stringify(CHECK), JSON.stringify(`${CHECK} && ! grep -rqs --exclude=.railyard.yml BAD .`));
    await openPrWithFiles(world, 8, { '.railyard.yml': stricter });
    await submit(8);
    expect((await prReaches(server.url, 8, TERMINAL, 120_000)).state).toBe('merged');
    expect(git('show', 'main:.railyard.yml')).toBe(stricter);
    await openPrWithFiles(world, 9, { 'bad9.txt': 'BAD\n' });
    await submit(9);
    expect((await prReaches(server.url, 9, TERMINAL, 120_000)).state).toBe('failed');
    expect(filesOnMain(world)).not.toContain('bad9.txt');
  });
});

import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { runGit } from '@railyard/githost';
import { branchSha, commitOnBranch, gitDirOf, treeOf } from '@railyard/testkit';
import { client, REPO } from './support/client';
import { RAILYARD_BIN, ROOT, startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(180_000);

const REPO_SPEC = `${REPO.host}/${REPO.owner}/${REPO.name}`;

let world: World;
let server: RunningProcess;
let ci: ReturnType<typeof client>;
let admin: ReturnType<typeof client>;

const railyard = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, [RAILYARD_BIN, ...args], { cwd: ROOT, env: { ...process.env, ...world.env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });

const eventually = async <T>(probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
};

const stateOf = async (n: number): Promise<string> => (await ci.getPr(n)).body.state as string;
const settled = (n: number) =>
  eventually(async () => ((s) => (['merged', 'failed', 'cancelled'].includes(s) ? s : undefined))(await stateOf(n)));

/** The test branch the engine built for PR n, once it exists. */
const testBranchOf = (n: number) =>
  eventually(async () => {
    const { stdout } = await runGit(gitDirOf(world.gitRoot, REPO), [
      'for-each-ref',
      '--format=%(refname:strip=2) %(objectname)',
      `refs/heads/railyard-merge/pr-${n}/`,
    ]);
    const [branch, sha] = stdout.trim().split('\n')[0]?.split(' ') ?? [];
    return branch && sha ? { branch, sha, testRunId: branch.split('/').pop() as string } : undefined;
  });

beforeAll(async () => {
  world = await makeWorld();
  // The checks the local CI runs for every run on main: one passes, one is advisory (not required).
  await commitOnBranch(world.gitRoot, REPO, {
    branch: 'main',
    files: {
      '.railyard.yml': 'ci:\n  unit: "echo unit ok"\n  advisory: "exit 1"\nmerge:\n  required_statuses: [unit]\n',
    },
    message: 'Add the CI config',
  });
  server = await startProcess('apps/server/src/main.ts', { ...world.env, RAILYARD_ENGINE: 'on', RAILYARD_ENGINE_TICK_MS: '200' });
  ci = client(server.url, TOKENS.write);
  admin = client(server.url, TOKENS.admin);
  await admin.createQueue();
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('the local CI driven by the engine', () => {
  it('when a PR is submitted, then its required check runs, it merges, and the run’s details link the check’s log', async () => {
    await world.openFeaturePr(1, { title: 'First feature' });
    expect((await ci.submit(1)).status).toBe(200);
    expect(await settled(1)).toBe('merged');
    // The first run of this server: its logs are the only ones (a check cannot write outside its sandbox).
    const [testRunId] = await fs.readdir(path.join(world.dataDir, 'ci-logs'));
    const details = await ci.post('/getMergeQueueTestingDetails', { repo: REPO, targetBranch: 'main', testRunId });
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({
      status: 'succeeded',
      requiredStatuses: ['unit'],
      requiredStatusesSource: 'trunk_config',
      testedPullRequests: [{ prNumber: 1, title: 'First feature', prUrl: `${server.url}/repos/git.local/acme/widgets/pulls/1` }],
      dependentPrs: [],
    });
    const unit = (details.body.checkSuites[0]?.checkRuns as { name: string; url: string; conclusion?: string }[]).find(
      (r) => r.name === 'unit',
    );
    expect(unit).toMatchObject({ url: `${server.url}/ci/logs/${testRunId}/unit`, status: 'COMPLETED', conclusion: 'SUCCESS' });
    const log = await request(unit?.url as string)
      .get('')
      .set('x-api-token', TOKENS.read);
    expect(log.text).toContain('unit ok');
    // The merged tree is the tested one.
    expect(await treeOf(world.gitRoot, REPO, (await branchSha(world.gitRoot, REPO, 'main')) as string)).toBe(
      await treeOf(world.gitRoot, REPO, details.body.testBranchSha),
    );
  });
});

describe('statuses from an outside CI gating the queue', () => {
  beforeAll(async () => {
    expect((await admin.updateQueue({ requiredStatuses: ['external/ci'] })).status).toBe(200);
  });

  it('when the outside CI reports success through the CLI while the server runs, then the engine hears it and merges', async () => {
    await world.openFeaturePr(2);
    await ci.submit(2);
    const run = await testBranchOf(2);
    const set = await railyard([
      'status',
      'set',
      '--repo',
      REPO_SPEC,
      '--sha',
      run.sha,
      '--context',
      'external/ci',
      '--state',
      'success',
      '--target-url',
      'https://jenkins.test/2',
    ]);
    expect(set.code).toBe(0);
    expect(await settled(2)).toBe('merged');
    const details = await ci.post('/getMergeQueueTestingDetails', { repo: REPO, targetBranch: 'main', testRunId: run.testRunId });
    expect(details.body).toMatchObject({
      requiredStatuses: ['external/ci'],
      requiredStatusesSource: 'merge_instance',
      status: 'succeeded',
    });
    expect(details.body.statusChecks).toContainEqual({ context: 'external/ci', url: 'https://jenkins.test/2', state: 'SUCCESS' });
  });

  it('when the outside CI reports failure over HTTP, then the PR fails naming the required status', async () => {
    await world.openFeaturePr(3);
    await ci.submit(3);
    const run = await testBranchOf(3);
    expect((await ci.post('/setCommitStatus', { repo: REPO, sha: run.sha, context: 'external/ci', state: 'failure' })).status).toBe(200);
    expect(await settled(3)).toBe('failed');
    const details = await ci.post('/getMergeQueueTestingDetails', { repo: REPO, targetBranch: 'main', testRunId: run.testRunId });
    expect(details.body.status).toBe('failed');
  });
});

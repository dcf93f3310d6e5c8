import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { LocalCommitStatusStore, runGit, type CommitStatus } from '@railyard/githost';
import { commitOnBranch, createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { checkFileName } from '../urls';
import { CiConfigError, LocalCiRunner, type LocalCiRunnerOptions, type UploadReportsInput } from './local-ci-runner';

jest.setTimeout(60_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const PUBLIC = 'http://railyard.test:8080';
let root: string;
let gitRoot: string;
let gitDir: string;
let scratch: string;
let statuses: LocalCommitStatusStore;
let runners: LocalCiRunner[];
let n = 0;
let runSeq = 0;

const runId = (): string => `00000000-0000-4000-8000-${String(++runSeq).padStart(12, '0')}`;

const commitConfig = (config: string, files: Record<string, string> = {}): Promise<string> =>
  commitOnBranch(gitRoot, repo, { branch: `railyard-merge/pr-${++n}/x`, files: { '.railyard.yml': config, ...files } });

const runner = (opts: Partial<LocalCiRunnerOptions> = {}): LocalCiRunner => {
  const r = new LocalCiRunner({
    gitRoot,
    dataDir: root,
    statuses,
    publicUrl: () => PUBLIC,
    killGraceMs: 300,
    baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    ...opts,
  });
  runners.push(r);
  return r;
};

const byContext = async (sha: string): Promise<Record<string, CommitStatus>> =>
  Object.fromEntries((await statuses.list(repo, sha)).map((s) => [s.context, s]));

const logOf = (testRunId: string, check: string): Promise<string> =>
  fs.readFile(path.join(root, 'ci-logs', testRunId, checkFileName(check)), 'utf8');

/** A zombie waiting for init to reap it counts as dead: it runs nothing. */
const isAlive = async (pid: number): Promise<boolean> => {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return false;
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
};

const allDead = async (pids: number[]): Promise<boolean> => (await Promise.all(pids.map(isAlive))).every((alive) => !alive);

const eventually = async (check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

const pidsIn = async (file: string): Promise<number[]> =>
  (await fs.readFile(file, 'utf8').catch(() => '')).split(/\s+/).filter(Boolean).map(Number);

beforeEach(async () => {
  root = await makeTempDir();
  gitRoot = path.join(root, 'git');
  scratch = path.join(root, 'scratch');
  await fs.mkdir(scratch);
  ({ gitDir } = await createRepoWithCommits(gitRoot, repo));
  statuses = new LocalCommitStatusStore({ root: gitRoot });
  runners = [];
});

afterEach(async () => {
  await Promise.all(runners.map((r) => r.close()));
  await statuses.close();
  await removeTempDir(root);
});

describe('LocalCiRunner', () => {
  it('when a passing and a failing check run, then each posts pending with its log URL, then success or failure, and logs its output', async () => {
    const sha = await commitConfig('ci:\n  pass: "cat marker.txt; echo to-stderr >&2"\n  fail: "echo boom; exit 3"\n', {
      'marker.txt': 'from the tested commit\n',
    });
    const id = runId();
    const r = runner();
    await r.trigger({ repo, sha, branch: `railyard-merge/pr-1/${id}`, testRunId: id, timeoutMinutes: 5 });
    const posted = await byContext(sha);
    expect(posted.pass).toMatchObject({ state: 'pending', targetUrl: `${PUBLIC}/ci/logs/${id}/pass` });
    expect(posted.fail).toMatchObject({ state: 'pending', targetUrl: `${PUBLIC}/ci/logs/${id}/fail` });
    expect(r.isRunning(id)).toBe(true);

    await r.whenDone(id);
    const done = await byContext(sha);
    expect(done.pass).toMatchObject({
      state: 'success',
      targetUrl: `${PUBLIC}/ci/logs/${id}/pass`,
      description: expect.stringMatching(/^passed in/),
    });
    expect(done.fail).toMatchObject({ state: 'failure', description: 'exit code 3' });
    expect(await logOf(id, 'pass')).toMatch(/from the tested commit\n(.|\n)*to-stderr/);
    expect(await logOf(id, 'fail')).toMatch(/\$ echo boom; exit 3\nboom\n# exit code 3\n/);
    expect(r.isRunning(id)).toBe(false);
    // The scratch checkouts are gone, from the disk and from git's list.
    expect((await runGit(gitDir, ['worktree', 'list', '--porcelain'])).stdout.match(/^worktree /gm)).toHaveLength(1);
    expect(await fs.readdir(path.join(root, 'ci-work')).catch(() => [])).toEqual([]);
  });

  it('when a check runs, then it sees its run in the environment and none of Railyard’s settings', async () => {
    const sha = await commitConfig('ci:\n  env: "env | sort"\n');
    const id = runId();
    const r = runner({
      baseEnv: { PATH: process.env.PATH, RAILYARD_API_TOKENS: 'ops:secret-secret-secret:admin', npm_config_x: '1', KEEP_ME: 'yes' },
    });
    await r.trigger({ repo, sha, branch: 'railyard-merge/pr-1/x', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    const log = await logOf(id, 'env');
    expect(log).toContain(`RAILYARD_TEST_RUN_ID=${id}`);
    expect(log).toContain(`RAILYARD_SHA=${sha}`);
    expect(log).toContain('RAILYARD_BRANCH=railyard-merge/pr-1/x');
    expect(log).toContain('RAILYARD_REPO=git.test/acme/widgets');
    expect(log).toContain('CI=true');
    expect(log).toContain('KEEP_ME=yes');
    expect(log).not.toContain('secret-secret');
    expect(log).not.toContain('npm_config_x');
  });

  it('when a check outlives the timeout, then its whole process tree is killed, even a child ignoring SIGTERM, and it reports error', async () => {
    const pids = path.join(scratch, 'pids');
    const sha = await commitConfig(
      `ci:\n  slow: |\n    echo $$ >> ${pids}\n    (trap '' TERM; sleep 300) &\n    echo $! >> ${pids}\n    sleep 300 &\n    echo $! >> ${pids}\n    wait\n`,
    );
    const id = runId();
    const r = runner();
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 0.03 });
    await eventually(async () => (await pidsIn(pids)).length === 3);
    await r.whenDone(id);
    expect((await byContext(sha)).slow).toMatchObject({ state: 'error', description: 'timed out after 0.03 min; process tree killed' });
    const tree = await pidsIn(pids);
    await eventually(() => allDead(tree), 5000);
    expect(await logOf(id, 'slow')).toMatch(/# timed out after 0\.03 min; process tree killed\n$/);
  });

  it('when a run is cancelled, then running checks are killed and queued ones never start', async () => {
    const pids = path.join(scratch, 'pids');
    const sha = await commitConfig(`ci:\n  first: "echo $$ >> ${pids}; sleep 300"\n  second: "echo second-ran >> ${pids}"\n`);
    const id = runId();
    const r = runner({ concurrency: 1 });
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await eventually(async () => (await pidsIn(pids)).length === 1);
    await r.cancel(id);
    const done = await byContext(sha);
    expect(done.first).toMatchObject({ state: 'error', description: 'cancelled; process tree killed' });
    expect(done.second).toMatchObject({ state: 'error', description: 'cancelled before it started' });
    const tree = await pidsIn(pids);
    await eventually(() => allDead(tree), 5000);
    expect(await fs.readFile(pids, 'utf8')).not.toContain('second-ran');
    expect(r.isRunning(id)).toBe(false);
  });

  it('when more checks than the concurrency are triggered, then no more than that many run at once', async () => {
    const dir = path.join(scratch, 'running');
    await fs.mkdir(dir);
    const check = (name: string) => `  ${name}: "touch ${dir}/${name}; ls ${dir} | wc -l >> ${scratch}/seen; sleep 0.3; rm ${dir}/${name}"`;
    const sha = await commitConfig(`ci:\n${['a', 'b', 'c', 'd', 'e'].map(check).join('\n')}\n`);
    const id = runId();
    const r = runner({ concurrency: 2 });
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    const seen = await pidsIn(path.join(scratch, 'seen'));
    expect(seen).toHaveLength(5);
    expect(Math.max(...seen)).toBeLessThanOrEqual(2);
    expect(Object.values(await byContext(sha)).every((s) => s.state === 'success')).toBe(true);
  });

  it('when the same run is triggered twice, or again by a restarted runner after it finished, then its checks run once', async () => {
    const count = path.join(scratch, 'count');
    const sha = await commitConfig(`ci:\n  once: "echo ran >> ${count}"\n`);
    const id = runId();
    const r = runner();
    const input = { repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 };
    await Promise.all([r.trigger(input), r.trigger(input)]);
    await r.whenDone(id);
    await runner().trigger(input);
    expect(await fs.readFile(count, 'utf8')).toBe('ran\n');
  });

  it('when a restarted runner is triggered for a run whose check never finished, then that check runs again', async () => {
    const count = path.join(scratch, 'count');
    const sha = await commitConfig(`ci:\n  again: "echo ran >> ${count}"\n`);
    const id = runId();
    await statuses.set(repo, sha, { context: 'again', state: 'pending', targetUrl: `${PUBLIC}/ci/logs/${id}/again` });
    const r = runner();
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    expect(await fs.readFile(count, 'utf8')).toBe('ran\n');
    expect((await byContext(sha)).again?.state).toBe('success');
  });

  it('when the commit has no .railyard.yml or no checks in it, then nothing starts and nothing is posted', async () => {
    const bare = await commitOnBranch(gitRoot, repo, { branch: 'plain', files: { 'a.txt': 'a' } });
    const noChecks = await commitConfig('merge:\n  required_statuses: [external]\n');
    const r = runner();
    for (const sha of [bare, noChecks]) {
      const id = runId();
      await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
      expect(r.isRunning(id)).toBe(false);
      expect(await statuses.list(repo, sha)).toEqual([]);
    }
  });

  it('when .railyard.yml is malformed, then trigger rejects with a config error and posts nothing', async () => {
    const sha = await commitConfig('ci: [unclosed\n');
    const r = runner();
    const id = runId();
    const err = await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CiConfigError);
    expect((err as CiConfigError).code).toBe('START_TEST_RUN_CONFIG_PARSING_FAILURE');
    expect(await statuses.list(repo, sha)).toEqual([]);
    expect(r.isRunning(id)).toBe(false);
  });

  it('when a check cannot be started, then it reports error and says why in its log', async () => {
    const sha = await commitConfig('ci:\n  build: "true"\n');
    const id = runId();
    const r = runner({ baseEnv: { PATH: path.join(scratch, 'empty-path') } });
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    expect((await byContext(sha)).build).toMatchObject({ state: 'error', description: expect.stringMatching(/^could not start/) });
    expect(await logOf(id, 'build')).toMatch(/# could not start/);
  });

  it('when .railyard.yml names reports, then the files the checks wrote are uploaded once after the checks', async () => {
    const sha = await commitConfig(
      'ci:\n  unit: "mkdir -p reports && echo \'<testsuite name=unit/>\' > reports/junit-unit.xml"\n  e2e: "mkdir -p reports/e2e && echo \'<testsuite name=e2e/>\' > reports/e2e/junit.xml; echo x > reports/other.txt"\nreports: ["reports/junit-*.xml", "reports/**/junit.xml"]\n',
    );
    const uploads: UploadReportsInput[] = [];
    const id = runId();
    const r = runner({ uploadReports: async (input) => void uploads.push(input) });
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatchObject({ repo, sha, testRunId: id });
    expect(uploads[0]?.files.map((f) => f.toString('utf8').trim()).sort()).toEqual(['<testsuite name=e2e/>', '<testsuite name=unit/>']);
  });

  it('when the runner closes, then its running checks are killed and reported', async () => {
    const pids = path.join(scratch, 'pids');
    const sha = await commitConfig(`ci:\n  forever: "echo $$ >> ${pids}; sleep 300"\n`);
    const id = runId();
    const r = runner();
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await eventually(async () => (await pidsIn(pids)).length === 1);
    await r.close();
    expect((await byContext(sha)).forever?.state).toBe('error');
    const tree = await pidsIn(pids);
    await eventually(() => allDead(tree), 5000);
    await expect(r.trigger({ repo, sha, branch: 'b', testRunId: runId(), timeoutMinutes: 5 })).rejects.toThrow(/closed/);
  });

  it('when the runner process is killed with -9, then its checks die with it and the next runner clears their checkouts', async () => {
    const pids = path.join(scratch, 'pids');
    const sha = await commitConfig(`ci:\n  orphan: "echo $$ >> ${pids}; sleep 300 & echo $! >> ${pids}; wait"\n`);
    const id = runId();
    const projectRoot = path.resolve(__dirname, '../../../..');
    // node itself with tsx as a loader: the tsx launcher would put a second process in between, and
    // killing the launcher would leave the runner running.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'testing/runner-process.ts')], {
      cwd: projectRoot,
      env: {
        ...process.env,
        RAILYARD_TEST_RUNNER: JSON.stringify({
          gitRoot,
          dataDir: root,
          trigger: { repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 },
        }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await eventually(async () => (await pidsIn(pids)).length === 2, 30_000);
    const tree = await pidsIn(pids);
    child.kill('SIGKILL');
    await exited;
    await eventually(() => allDead(tree), 10_000);

    expect(await fs.readdir(path.join(root, 'ci-work', id))).toHaveLength(2);
    expect(await runner().recover()).toBe(1);
    expect(await fs.readdir(path.join(root, 'ci-work'))).toEqual([]);
    expect((await runGit(gitDir, ['worktree', 'list', '--porcelain'])).stdout.match(/^worktree /gm)).toHaveLength(1);
  });
});

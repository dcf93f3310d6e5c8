import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { getPriority } from 'node:os';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import type { CommitStatus } from '@railyard/githost';
import { commitOnBranch, eventually, processesNamed, processToken } from '@railyard/testkit';
import { CiConfigError, type LocalCiRunner, type UploadReportsInput } from './local-ci-runner';
import type { CheckFinished } from './outcome';
import { RunnerBed } from './testing/runner-bed';

jest.setTimeout(60_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const PUBLIC = 'http://railyard.test:8080';
const bed = new RunnerBed(repo, { publicUrl: () => PUBLIC, baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME } });
let n = 0;
let runSeq = 0;

const runId = (): string => `00000000-0000-4000-8000-${String(++runSeq).padStart(12, '0')}`;

const commitConfig = (config: string, files: Record<string, string> = {}): Promise<string> =>
  commitOnBranch(bed.gitRoot, repo, { branch: `railyard-merge/pr-${++n}/x`, files: { '.railyard.yml': config, ...files } });

const byContext = async (sha: string): Promise<Record<string, CommitStatus>> =>
  Object.fromEntries((await bed.statuses.list(repo, sha)).map((s) => [s.context, s]));

describe('LocalCiRunner', () => {
  it('when a passing and a failing check run, then each posts pending with its log URL, then success or failure, and logs its output', async () => {
    const sha = await commitConfig('ci:\n  pass: "cat marker.txt; echo to-stderr >&2"\n  fail: "echo boom; exit 3"\n', {
      'marker.txt': 'from the tested commit\n',
    });
    const id = runId();
    const finished: CheckFinished[] = [];
    const r = bed.runner({}, finished);
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
    expect(await bed.logOf(id, 'pass')).toMatch(/from the tested commit\n(.|\n)*to-stderr/);
    expect(await bed.logOf(id, 'fail')).toMatch(/\$ echo boom; exit 3\nboom\n# exit code 3\n/);
    expect(r.isRunning(id)).toBe(false);
    expect(finished.map((f) => [f.check, f.outcome.kind]).sort()).toEqual([
      ['fail', 'failed'],
      ['pass', 'passed'],
    ]);
    // The scratch checkouts are gone, and the bare repository never held any state of theirs.
    expect(await fs.readdir(path.join(bed.root, 'ci-work')).catch(() => [])).toEqual([]);
    expect(existsSync(path.join(bed.gitDir, 'worktrees'))).toBe(false);
  });

  it('when a check runs, then its environment is the documented one and nothing else of the server’s', async () => {
    const sha = await commitConfig('ci:\n  env: "env | sort"\n');
    const id = runId();
    const r = bed.runner({
      baseEnv: {
        PATH: process.env.PATH,
        LANG: 'C.UTF-8',
        RAILYARD_API_TOKENS: 'ops:secret-secret-secret:admin',
        npm_config_x: '1',
        CLOUD_KEY: 'k',
      },
    });
    await r.trigger({ repo, sha, branch: 'railyard-merge/pr-1/x', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    const log = await bed.logOf(id, 'env');
    const names = log
      .split('\n')
      .filter((l) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(l))
      .map((l) => l.slice(0, l.indexOf('=')));
    // PWD, SHLVL and _ are bash's own.
    expect(names.sort()).toEqual(
      [
        'CI',
        'HOME',
        'LANG',
        'PATH',
        'PWD',
        'RAILYARD_BRANCH',
        'RAILYARD_CHECK',
        'RAILYARD_CI',
        'RAILYARD_REPO',
        'RAILYARD_SHA',
        'RAILYARD_TEST_RUN_ID',
        'SHLVL',
        'TMPDIR',
        '_',
      ].sort(),
    );
    expect(log).toContain(`RAILYARD_TEST_RUN_ID=${id}`);
    expect(log).toContain(`RAILYARD_SHA=${sha}`);
    expect(log).toContain('RAILYARD_BRANCH=railyard-merge/pr-1/x');
    expect(log).toContain('RAILYARD_REPO=git.test/acme/widgets');
    expect(log).toContain('HOME=/tmp');
    expect(log).not.toContain('secret-secret');
  });

  it('when the runner is given a niceness, then a check’s process runs that much nicer than the server, in its sandbox', async () => {
    // The check reads its own niceness (field 19 of its stat): a CPU-heavy check then yields to the API (D330).
    const sha = await commitConfig('ci:\n  nice: "awk \'{ print \\"niceness=\\" $19 }\' /proc/self/stat"\n');
    const id = runId();
    const r = bed.runner({ niceness: 7 });
    await r.trigger({ repo, sha, branch: 'railyard-merge/pr-1/x', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    expect(await bed.logOf(id, 'nice')).toContain(`niceness=${Math.min(19, getPriority() + 7)}\n`);
  });

  it('when a check outlives the timeout, then its whole process tree is killed, even a child ignoring SIGTERM, and it reports error', async () => {
    const token = processToken('timeout');
    const sha = await commitConfig(
      `ci:\n  slow: |\n    (trap '' TERM; exec -a ${token}-deaf sleep 300) &\n    (exec -a ${token}-bg sleep 300) &\n    exec -a ${token}-main sleep 300\n`,
    );
    const id = runId();
    const r = bed.runner();
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 0.1 });
    await eventually(async () => (await processesNamed(token)).length === 3, '3 check processes running', 30_000);
    await r.whenDone(id);
    expect((await byContext(sha)).slow).toMatchObject({ state: 'error', description: 'timed out after 0.1 min; process tree killed' });
    await eventually(async () => (await processesNamed(token)).length === 0, 'no check process left', 5000);
    expect(await bed.logOf(id, 'slow')).toMatch(/# timed out after 0\.1 min; process tree killed\n$/);
  });

  it('when a run is cancelled, then running checks are killed, a process that left the group included, and queued ones never start', async () => {
    const token = processToken('cancel');
    const sha = await commitConfig(
      `ci:\n  first: "setsid -f bash -c 'exec -a ${token}-daemon sleep 300'; exec -a ${token}-main sleep 300"\n  second: "exec -a ${token}-second sleep 300"\n`,
    );
    const id = runId();
    const finished: CheckFinished[] = [];
    const r = bed.runner({ concurrency: 1 }, finished);
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await eventually(async () => (await processesNamed(token)).length === 2, '2 check processes running', 30_000);
    await r.cancel(id);
    await r.whenDone(id);
    const done = await byContext(sha);
    expect(done.first).toMatchObject({ state: 'error', description: 'cancelled; process tree killed' });
    expect(done.second).toMatchObject({ state: 'error', description: 'cancelled before it started' });
    await eventually(async () => (await processesNamed(token)).length === 0, 'no check process left', 5000);
    expect(finished.map((f) => f.outcome)).toEqual([
      { kind: 'cancelled', started: false },
      { kind: 'cancelled', started: true },
    ]);
    expect(r.isRunning(id)).toBe(false);
  });

  it('when a cancelled check traps SIGTERM, then the signal reaches it inside the sandbox and its handler runs before the kill', async () => {
    const token = processToken('grace');
    const sha = await commitConfig(`ci:\n  tidy: "trap 'echo tidied-up; exit 0' TERM; (exec -a ${token} sleep 300) & wait"\n`);
    const id = runId();
    const r = bed.runner({ killGraceMs: 5000 });
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await eventually(async () => (await processesNamed(token)).length === 1, '1 check processes running', 30_000);
    await r.cancel(id);
    await r.whenDone(id);
    expect(await bed.logOf(id, 'tidy')).toContain('tidied-up\n');
    expect((await byContext(sha)).tidy).toMatchObject({ state: 'error', description: 'cancelled; process tree killed' });
    await eventually(async () => (await processesNamed(token)).length === 0, 'no check process left', 5000);
  });

  it('when more checks than the concurrency are triggered, then no more than that many run at once', async () => {
    const token = processToken('slots');
    const names = ['a', 'b', 'c', 'd', 'e'];
    const sha = await commitConfig(`ci:\n${names.map((c) => `  ${c}: "exec -a ${token}-${c} sleep 0.5"`).join('\n')}\n`);
    const id = runId();
    const r = bed.runner({ concurrency: 2 });
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    let most = 0;
    const seen = new Set<number>();
    const done = r.whenDone(id).then(() => true);
    while (!(await Promise.race([done, new Promise<false>((resolve) => setTimeout(() => resolve(false), 20))]))) {
      const running = await processesNamed(token);
      running.forEach((pid) => seen.add(pid));
      most = Math.max(most, running.length);
    }
    expect(seen.size).toBeGreaterThanOrEqual(2);
    expect(most).toBeLessThanOrEqual(2);
    expect(Object.values(await byContext(sha)).map((s) => s.state)).toEqual(names.map(() => 'success'));
  });

  it('when the same run is triggered twice, or again by a restarted runner after it finished, then its checks run once', async () => {
    const sha = await commitConfig('ci:\n  once: "echo ran"\n');
    const id = runId();
    const finished: CheckFinished[] = [];
    const r = bed.runner({}, finished);
    const input = { repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 };
    await Promise.all([r.trigger(input), r.trigger(input)]);
    await r.whenDone(id);
    const restarted = bed.runner({}, finished);
    await restarted.trigger(input);
    await restarted.whenDone(id);
    expect(finished.map((f) => f.check)).toEqual(['once']);
  });

  it("when a run's checks all ended and posted, then the runner knows it until it is cancelled and a trigger meanwhile reads nothing", async () => {
    const sha = await commitConfig('ci:\n  once: "echo ran"\n');
    const id = runId();
    let reads = 0;
    const statuses = new Proxy(bed.statuses, {
      get: (target, key, receiver) =>
        key === 'reports'
          ? (...args: Parameters<typeof target.reports>) => (reads++, target.reports(...args))
          : Reflect.get(target, key, receiver),
    });
    const r = bed.runner({ statuses });
    const input = { repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 };
    await r.trigger(input);
    await r.whenDone(id);
    expect([r.isRunning(id), r.knows(id), reads]).toEqual([false, true, 1]);
    // The engine sees the run testing until it records the verdict, and triggers it again meanwhile.
    await r.trigger(input);
    expect(reads).toBe(1);
    await r.cancel(id);
    expect(r.knows(id)).toBe(false);
  });

  it('when a final status could not be posted, then the runner forgets the run and a trigger runs its check again', async () => {
    const sha = await commitConfig('ci:\n  again: "echo ran"\n');
    const id = runId();
    let failOnce = true;
    const statuses = new Proxy(bed.statuses, {
      get: (target, key, receiver) =>
        key === 'set'
          ? (...args: Parameters<typeof target.set>) => {
              if (args[2].state !== 'success' || !failOnce) return target.set(...args);
              failOnce = false;
              return Promise.reject(new Error('the log is unavailable'));
            }
          : Reflect.get(target, key, receiver),
    });
    const finished: CheckFinished[] = [];
    const r = bed.runner({ statuses }, finished);
    const input = { repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 };
    await r.trigger(input);
    await r.whenDone(id);
    expect(r.knows(id)).toBe(false);
    await r.trigger(input);
    await r.whenDone(id);
    expect(finished.map((f) => f.outcome.kind)).toEqual(['passed', 'passed']);
    expect((await byContext(sha)).again?.state).toBe('success');
  });

  it('when a restarted runner is triggered for a run whose check never finished, then that check runs again', async () => {
    const sha = await commitConfig('ci:\n  again: "echo ran"\n');
    const id = runId();
    await bed.statuses.set(repo, sha, { context: 'again', state: 'pending', targetUrl: `${PUBLIC}/ci/logs/${id}/again` });
    const finished: CheckFinished[] = [];
    const r = bed.runner({}, finished);
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    expect(finished.map((f) => [f.check, f.outcome.kind])).toEqual([['again', 'passed']]);
    expect((await byContext(sha)).again?.state).toBe('success');
  });

  it('when a token already posted a final status for a check, its log URL included, or one with no reporter was left from before reporters were, then the check runs', async () => {
    const sha = await commitConfig('ci:\n  forged: "echo ran; exit 1"\n  old: "echo ran"\n');
    const id = runId();
    // Only the local CI's own report says a check ran: a write token could otherwise claim it did.
    await bed.statuses.set(repo, sha, {
      context: 'forged',
      state: 'success',
      targetUrl: `${PUBLIC}/ci/logs/${id}/forged`,
      reporter: 'token:ci',
    });
    await bed.statuses.set(repo, sha, { context: 'old', state: 'success', targetUrl: `${PUBLIC}/ci/logs/${id}/old` });
    const finished: CheckFinished[] = [];
    const r = bed.runner({}, finished);
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    expect(finished.map((f) => [f.check, f.outcome.kind]).sort()).toEqual([
      ['forged', 'failed'],
      ['old', 'passed'],
    ]);
    const own = (await bed.statuses.reports(repo, sha)).filter((s) => s.reporter === 'local-ci');
    expect(own.map((s) => [s.context, s.state]).sort()).toEqual([
      ['forged', 'failure'],
      ['old', 'success'],
    ]);
  });

  it('when the commit has no .railyard.yml or no checks in it, then nothing starts and nothing is posted', async () => {
    const bare = await commitOnBranch(bed.gitRoot, repo, { branch: 'plain', files: { 'a.txt': 'a' } });
    const noChecks = await commitConfig('merge:\n  required_statuses: [external]\n');
    const r = bed.runner();
    for (const sha of [bare, noChecks]) {
      const id = runId();
      await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
      expect(r.isRunning(id)).toBe(false);
      expect(await bed.statuses.list(repo, sha)).toEqual([]);
    }
  });

  it('when .railyard.yml is malformed, then trigger rejects with a config error and posts nothing', async () => {
    const sha = await commitConfig('ci: [unclosed\n');
    const r = bed.runner();
    const id = runId();
    const err = await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CiConfigError);
    expect((err as CiConfigError).code).toBe('START_TEST_RUN_CONFIG_PARSING_FAILURE');
    expect(await bed.statuses.list(repo, sha)).toEqual([]);
    expect(r.isRunning(id)).toBe(false);
  });

  it('when a check cannot be started, then it reports an infrastructure error, not a failure, and says why in its log', async () => {
    const sha = await commitConfig('ci:\n  build: "true"\n');
    const id = runId();
    const finished: CheckFinished[] = [];
    const r = bed.runner({ baseEnv: { PATH: path.join(bed.root, 'empty-path') } }, finished);
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    expect((await byContext(sha)).build).toMatchObject({
      state: 'error',
      description: expect.stringMatching(/^infrastructure error CI_(CHECK_NOT_STARTED|SANDBOX_UNAVAILABLE): /),
    });
    expect(finished[0]?.outcome).toMatchObject({ kind: 'infrastructure' });
    expect(await bed.logOf(id, 'build')).toMatch(/# infrastructure error CI_/);
  });

  it('when .railyard.yml names reports, then the files the checks wrote are uploaded once after the checks', async () => {
    const sha = await commitConfig(
      'ci:\n  unit: "mkdir -p reports && echo \'<testsuite name=unit/>\' > reports/junit-unit.xml"\n  e2e: "mkdir -p reports/e2e && echo \'<testsuite name=e2e/>\' > reports/e2e/junit.xml; echo x > reports/other.txt"\nreports: ["reports/junit-*.xml", "reports/**/junit.xml"]\n',
    );
    const uploads: UploadReportsInput[] = [];
    const id = runId();
    const r = bed.runner({ uploadReports: async (input) => void uploads.push(input) });
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatchObject({ repo, sha, testRunId: id });
    expect(uploads[0]?.files.map((f) => f.toString('utf8').trim()).sort()).toEqual(['<testsuite name=e2e/>', '<testsuite name=unit/>']);
  });

  it('when the queue ends the run as soon as the last verdict is posted, then the reports of the checks that finished are still uploaded', async () => {
    // What the engine does on a pass: it merges and cancels what is left of the run, while the
    // runner is still removing the checkout (the verdict goes out first, e5a0971).
    const sha = await commitConfig('ci:\n  unit: "echo \'<testsuite name=unit/>\' > junit.xml"\nreports: [junit.xml]\n');
    const uploads: UploadReportsInput[] = [];
    const id = runId();
    const r: LocalCiRunner = bed.runner({
      uploadReports: async (input) => void uploads.push(input),
      onCheckFinished: () => void r.cancel(id),
    });
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    expect((await byContext(sha)).unit?.state).toBe('success');
    expect(uploads.flatMap((u) => u.files.map((f) => f.toString('utf8').trim()))).toEqual(['<testsuite name=unit/>']);
  });

  it('when a run is cancelled, then cancel returns at once while its processes are reaped in the background, counted until they are gone', async () => {
    const token = processToken('reap');
    // The check takes 1.5 s to go after SIGTERM: cancel must not wait for it.
    const sha = await commitConfig(`ci:\n  slow-exit: "trap 'sleep 1.5; exit 0' TERM; (exec -a ${token} sleep 300) & wait"\n`);
    const id = runId();
    const r = bed.runner({ killGraceMs: 10_000 });
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await eventually(async () => (await processesNamed(token)).length === 1, '1 check processes running', 30_000);
    await r.cancel(id);
    expect(r.reapsPending()).toBe(1);
    expect((await byContext(sha))['slow-exit']?.state).toBe('pending');
    await r.whenDone(id);
    await eventually(() => r.reapsPending() === 0, 'every reap done', 10_000);
    expect((await byContext(sha))['slow-exit']).toMatchObject({ state: 'error', description: 'cancelled; process tree killed' });
  });

  it('when a cancelled run is still being reaped and a new run tests the same commit, then the late "cancelled" does not overwrite the new run\'s status', async () => {
    const token = processToken('same-sha');
    const sha = await commitConfig(`ci:\n  t: "trap 'sleep 2.5; exit 0' TERM; (exec -a ${token} sleep 1) & wait"\n`);
    const first = runId();
    const second = runId();
    const r = bed.runner({ killGraceMs: 10_000 });
    await r.trigger({ repo, sha, branch: 'b', testRunId: first, timeoutMinutes: 5 });
    await eventually(async () => (await processesNamed(token)).length === 1, '1 check processes running', 30_000);
    await r.cancel(first);
    await r.trigger({ repo, sha, branch: 'b', testRunId: second, timeoutMinutes: 5 });
    await Promise.all([r.whenDone(first), r.whenDone(second)]);
    await eventually(() => r.reapsPending() === 0, 'every reap done', 10_000);
    const t = (await byContext(sha)).t;
    expect(t?.targetUrl).toContain(`/ci/logs/${second}/t`);
    expect(t?.state).toBe('success');
  });

  it('when a check ended in an infrastructure error is retried, then it runs again in the same run and reports its verdict', async () => {
    const sha = await commitConfig('ci:\n  again: "true"\n  other: "true"\n');
    const id = runId();
    const r = bed.runner();
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    // What a runner crash leaves: an infrastructure error on one check, the other one passed.
    const url = (await byContext(sha)).again?.targetUrl ?? '';
    await bed.statuses.set(repo, sha, {
      context: 'again',
      state: 'error',
      targetUrl: url,
      description: 'infrastructure error CI_RUNNER_ERROR: boom',
    });
    await r.retry({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 }, ['again']);
    await r.whenDone(id);
    await eventually(async () => (await byContext(sha)).again?.state === 'success', 'the re-run check to succeed', 10_000);
    expect((await byContext(sha)).other?.state).toBe('success');
  });

  it('when the runner closes (Railyard stops), then its running checks are killed and their statuses stay pending for the next engine', async () => {
    const token = processToken('close');
    const sha = await commitConfig(`ci:\n  forever: "exec -a ${token} sleep 300"\n`);
    const id = runId();
    const r = bed.runner();
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await eventually(async () => (await processesNamed(token)).length === 1, '1 check processes running', 30_000);
    await r.close();
    expect((await byContext(sha)).forever?.state).toBe('pending');
    await eventually(async () => (await processesNamed(token)).length === 0, 'no check process left', 5000);
    await expect(r.trigger({ repo, sha, branch: 'b', testRunId: runId(), timeoutMinutes: 5 })).rejects.toThrow(/closed/);
  });

  it('when the runner process is killed with -9, then its checks die with it and the next runner clears their checkouts', async () => {
    const token = processToken('orphan');
    const sha = await commitConfig(`ci:\n  orphan: "(exec -a ${token}-bg sleep 300) & exec -a ${token}-main sleep 300"\n`);
    const id = runId();
    const projectRoot = path.resolve(__dirname, '../../../..');
    // node itself with tsx as a loader: the tsx launcher would put a second process in between, and
    // killing the launcher would leave the runner running.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'testing/runner-process.ts')], {
      cwd: projectRoot,
      env: {
        ...process.env,
        RAILYARD_TEST_RUNNER: JSON.stringify({
          gitRoot: bed.gitRoot,
          dataDir: bed.root,
          trigger: { repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 },
        }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await eventually(async () => (await processesNamed(token)).length === 2, '2 check processes running', 30_000);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    await eventually(async () => (await processesNamed(token)).length === 0, 'no check process left', 10_000);

    // The attempt's directory and its owner file.
    expect(await fs.readdir(path.join(bed.root, 'ci-work', id))).toHaveLength(2);
    expect(await bed.runner().recover()).toBe(1);
    expect(await fs.readdir(path.join(bed.root, 'ci-work'))).toEqual([]);
  });

  it('when another runner of the same process recovers, then it leaves the checkouts of a live runner alone', async () => {
    const token = processToken('live');
    const sha = await commitConfig(`ci:\n  busy: "exec -a ${token} sleep 300"\n`);
    const id = runId();
    const r = bed.runner();
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await eventually(async () => (await processesNamed(token)).length === 1, '1 check processes running', 30_000);
    expect(await bed.runner().recover()).toBe(0);
    expect(await fs.readdir(path.join(bed.root, 'ci-work', id))).toHaveLength(2);
  });
});

import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { SqliteEventStore } from '@railyard/eventstore';
import { localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { cliInProcess, cliViaBin, PROJECT_ROOT } from '../testing';

jest.setTimeout(60_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const REPO = 'git.test/acme/widgets';

// The data dir holds the event store (where statuses are kept) and the git root under git/.
const railyard = (args: string[], dataDir: string) => cliViaBin(args, { RAILYARD_DATA_DIR: dataDir });
const inProcess = (args: string[], dataDir: string, env: NodeJS.ProcessEnv = {}) =>
  cliInProcess(['status', ...args], { RAILYARD_DATA_DIR: dataDir, ...env });

/** A data dir as a server leaves it, one repository under git/ and the event store, made for each test. */
const dataDirBed = () => {
  const bed = { root: '', sha: '', store: null as unknown as CommitStatusStore };
  let eventStore: SqliteEventStore;
  beforeEach(async () => {
    bed.root = await makeTempDir();
    bed.sha = (await createRepoWithCommits(path.join(bed.root, 'git'), repo)).sha;
    eventStore = new SqliteEventStore({ file: path.join(bed.root, 'events.sqlite') });
    // What a server sharing the data dir reads.
    bed.store = localHostStatuses({ eventStore, gitRoot: path.join(bed.root, 'git') });
  });
  afterEach(async () => {
    await bed.store.close();
    await eventStore.close();
    await removeTempDir(bed.root);
  });
  return bed;
};

describe('railyard status', () => {
  const bed = dataDirBed();

  it('when a status is set through the real CLI with no server, then it is in the store as the CLI’s and listed back', async () => {
    const set = await railyard(
      [
        'status',
        'set',
        '--repo',
        REPO,
        '--sha',
        bed.sha,
        '--context',
        'jenkins/build',
        '--state',
        'FAILURE',
        '--target-url',
        'https://jenkins.test/9',
        '--description',
        'exit 2',
      ],
      bed.root,
    );
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(set.stdout).status).toMatchObject({
      context: 'jenkins/build',
      state: 'failure',
      targetUrl: 'https://jenkins.test/9',
      description: 'exit 2',
    });
    expect((await bed.store.list(repo, bed.sha)).map((s) => s.state)).toEqual(['failure']);
    // Its reporter is `cli`, which counts only where nobody is pinned to the context (docs/security.md).
    expect((await bed.store.reports(repo, bed.sha)).map((s) => s.reporter)).toEqual(['cli']);
    const list = await railyard(['status', 'list', '--repo', REPO, '--sha', bed.sha], bed.root);
    expect(JSON.parse(list.stdout).statuses).toHaveLength(1);
  });

  it('when the output is over 64 KiB and goes to a pipe, then every byte of it arrives before the CLI exits', async () => {
    for (let i = 0; i < 150; i++)
      await bed.store.set(repo, bed.sha, { context: `ci/job-${i}`, state: 'success', description: 'd'.repeat(900) });

    // A reader that starts late, as `railyard … | slow-consumer` does: the pipe fills while the CLI finishes.
    const line = `"${process.execPath}" apps/cli/bin/railyard.js status list --repo ${REPO} --sha ${bed.sha} | (sleep 1; cat)`;
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        'sh',
        ['-c', line],
        { cwd: PROJECT_ROOT, env: { ...process.env, RAILYARD_DATA_DIR: bed.root }, maxBuffer: 1 << 24 },
        (error, out) => (error ? reject(error) : resolve(out)),
      ),
    );

    expect(stdout.length).toBeGreaterThan(128 * 1024);
    expect(JSON.parse(stdout).statuses).toHaveLength(150);
  });

  it.each([
    [
      'a short sha',
      ['status', 'set', '--repo', REPO, '--sha', 'abc', '--context', 'c', '--state', 'success'],
      /--sha: sha must be a full commit SHA/,
    ],
    ['an unknown state', ['status', 'set', '--repo', REPO, '--sha', 'a'.repeat(40), '--context', 'c', '--state', 'green'], /--state/],
    ['no context', ['status', 'set', '--repo', REPO, '--sha', 'a'.repeat(40), '--state', 'success'], /--context is required/],
    [
      'a repo without host and owner',
      ['status', 'set', '--repo', 'just-a-name', '--sha', 'a'.repeat(40), '--context', 'c', '--state', 'success'],
      /--repo must be HOST\/OWNER\/NAME/,
    ],
    [
      'an ftp url',
      ['status', 'set', '--repo', REPO, '--sha', 'a'.repeat(40), '--context', 'c', '--state', 'success', '--target-url', 'ftp://x'],
      /--target-url: must be an http\(s\) URL/,
    ],
    [
      'an option of set given to list',
      ['status', 'list', '--repo', REPO, '--sha', 'a'.repeat(40), '--context', 'c'],
      /unknown option '--context'/,
    ],
    [
      '--api without a token',
      ['status', 'set', '--repo', REPO, '--sha', 'a'.repeat(40), '--context', 'c', '--state', 'success', '--api', 'http://127.0.0.1:1'],
      /no API token: give --token T or set RAILYARD_TOKEN/,
    ],
    ['an unknown subcommand', ['status', 'frobnicate'], /unknown subcommand "frobnicate"/],
  ])('when given %s, then it says why and exits 2 without writing', async (_what, args, message) => {
    const run = await inProcess(args.slice(1), bed.root);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(await bed.store.list(repo, bed.sha)).toEqual([]);
  });

  it('when the commit or repository is unknown, then it refuses with exit 1', async () => {
    const commit = await inProcess(['set', '--repo', REPO, '--sha', 'c'.repeat(40), '--context', 'c', '--state', 'success'], bed.root);
    expect(commit).toMatchObject({ code: 1, stderr: expect.stringMatching(/no commit c{40} in git.test\/acme\/widgets/) });
    const repository = await inProcess(
      ['set', '--repo', 'git.test/acme/nope', '--sha', bed.sha, '--context', 'c', '--state', 'success'],
      bed.root,
    );
    expect(repository.code).toBe(1);
  });

  it('when the data dir has no event store, then it says so and exits 1 without creating one', async () => {
    const empty = path.join(bed.root, 'elsewhere');
    const run = await inProcess(['set', '--repo', REPO, '--sha', bed.sha, '--context', 'c', '--state', 'success'], empty, {
      RAILYARD_GIT_ROOT: path.join(bed.root, 'git'),
    });
    expect(run).toMatchObject({ code: 1, stderr: expect.stringMatching(/no event store at .*elsewhere\/events\.sqlite/) });
    expect(existsSync(path.join(empty, 'events.sqlite'))).toBe(false);
    rmSync(empty, { recursive: true, force: true });
  });

  it('when --api points at nothing, then it says it could not reach it and exits 1', async () => {
    const run = await inProcess(
      [
        'set',
        '--repo',
        REPO,
        '--sha',
        bed.sha,
        '--context',
        'c',
        '--state',
        'success',
        '--api',
        'http://127.0.0.1:1',
        '--token',
        'x'.repeat(20),
      ],
      bed.root,
    );
    expect(run).toMatchObject({ code: 1, stderr: expect.stringMatching(/could not reach http:\/\/127\.0\.0\.1:1/) });
  });

  it('when asked for help, then it prints the usage and exits 0', async () => {
    expect(await inProcess(['--help'], bed.root)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: railyard status/) });
    expect(await inProcess(['set', '--help'], bed.root)).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Usage: railyard status set/),
    });
  });
});

import { promises as fs } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { commitOnBranch, createRepoWithCommits, gitDirOf, makeTempDir, openPr, removeTempDir } from '@railyard/testkit';
import { client, REPO } from './support/client';
import { eventually } from './support/engine-world';
import { startReadmeServer, type RunningProcess } from './support/processes';

jest.setTimeout(180_000);

// Secrets of the server: one in its environment under Railyard's prefix, one under an operator's own
// name, and the admin token it creates in its data dir on the first start (README's `npm start`).
const PAGE_SECRET = 'canary-page-secret-7f3a9c0d2b';
const OPERATOR_SECRET = 'canary-operator-secret-51e8b6';

let tmp: string;
let dataDir: string;
let server: RunningProcess;
let adminToken: string;
let probeLog: string;
let state: string;

/**
 * What a hostile PR's check tries, as issue 10 found it done: the environ of every ancestor and of
 * every process it can see, the data dir, the event store, the token file and the bare repository.
 */
const probe = (serverPid: number, gitDir: string): string =>
  [
    'pid=$$',
    'while [ "$pid" -ge 1 ]; do',
    '  echo "== ancestor $pid"',
    '  tr "\\0" "\\n" < /proc/$pid/environ',
    '  [ "$pid" -eq 1 ] && break',
    '  pid=$(sed -n "s/^PPid:[[:space:]]*//p" /proc/$pid/status)',
    'done',
    `echo "== server ${serverPid}"; tr "\\0" "\\n" < /proc/${serverPid}/environ`,
    'for f in /proc/[0-9]*/environ; do echo "== $f"; tr "\\0" "\\n" < "$f"; done',
    `echo "== data dir"; ls -la ${dataDir}`,
    `echo "== events"; cat ${path.join(dataDir, 'events.sqlite')}`,
    `echo "== token file"; cat ${path.join(dataDir, 'api-token')}`,
    `echo "== git root"; cat ${path.join(gitDir, 'HEAD')}; ls ${gitDir}`,
    `echo "== logs"; cat ${path.join(dataDir, 'ci-logs')}/*/*`,
    'echo "== probe finished"',
    'exit 0',
  ].join('\n');

beforeAll(async () => {
  tmp = await makeTempDir('railyard-e2e-');
  // Not made beforehand: the server creates it, as `npm start` does on a fresh clone.
  dataDir = path.join(tmp, 'data');
  ({ server, adminToken } = await startReadmeServer(dataDir, { RAILYARD_PAGE_TOKEN_SECRET: PAGE_SECRET, OPERATOR_SECRET }));
  expect(adminToken).not.toBe('');

  // README step 1: a repository on the local git host whose .railyard.yml gates merges on the probe.
  const gitRoot = path.join(dataDir, 'git');
  await createRepoWithCommits(gitRoot, REPO, { files: { 'README.md': '# widgets\n' } });
  const gitDir = gitDirOf(gitRoot, REPO);
  await commitOnBranch(gitRoot, REPO, {
    branch: 'main',
    files: { '.railyard.yml': 'ci:\n  probe: "bash probe.sh"\nmerge:\n  required_statuses: [probe]\n' },
  });
  // README step 2: the PR adds the probe.
  await commitOnBranch(gitRoot, REPO, { branch: 'feature', files: { 'probe.sh': probe(server.proc.pid as number, gitDir) } });
  await openPr(gitRoot, { repo: REPO, number: 1, head: 'feature', base: 'main' });

  // README step 3: a queue, the PR submitted, and a target list (a blob in the data dir).
  const admin = client(server.url, adminToken);
  expect((await admin.createQueue()).status).toBe(200);
  expect((await admin.setTargets(1, ['//app:test'])).status).toBe(200);
  expect((await admin.submit(1)).status).toBe(200);
  state = await eventually(
    'PR 1 to settle',
    async () => {
      const s = (await admin.getPr(1)).body.state as string;
      return ['merged', 'failed', 'cancelled'].includes(s) ? s : undefined;
    },
    120_000,
  );
  // One run tested PR 1; its test branch is gone once merged, its log stays.
  const [testRunId] = await fs.readdir(path.join(dataDir, 'ci-logs'));
  // The log as a read-scope token holder gets it.
  probeLog = (
    await request(server.url)
      .get(`/ci/logs/${testRunId as string}/probe`)
      .set('x-api-token', adminToken)
  ).text;
});

afterAll(async () => {
  await server?.stop();
  await removeTempDir(tmp);
});

describe('a PR whose check hunts for the server’s secrets', () => {
  it('when the check ran, then it really probed (its log shows each attempt) and the PR merged', () => {
    expect(probeLog).toContain('== ancestor');
    expect(probeLog).toContain('== token file');
    expect(probeLog).toContain('== probe finished');
    expect(state).toBe('merged');
  });

  it('when it read every environ it could reach, then it found its documented run variables and none of the server’s', () => {
    expect(probeLog).toContain('RAILYARD_TEST_RUN_ID=');
    expect(probeLog).toContain('RAILYARD_CI=true');
    expect(probeLog).not.toContain(PAGE_SECRET);
    expect(probeLog).not.toContain(OPERATOR_SECRET);
    expect(probeLog).not.toContain(`RAILYARD_DATA_DIR=`);
  });

  it('when it read the data dir, the event store, the token file and the bare repository, then it got none of their bytes', () => {
    expect(probeLog).not.toContain(adminToken);
    expect(probeLog).not.toContain('SQLite format 3');
    expect(probeLog).not.toContain('ref: refs/heads/main');
    // The data dir it lists holds at most the mount points of its own checkout and objects.
    const listing = probeLog.slice(probeLog.indexOf('== data dir'), probeLog.indexOf('== events'));
    expect(listing).not.toMatch(/ (api-token|events\.sqlite|blobs|ci-logs)\n/);
    expect(probeLog.slice(probeLog.indexOf('== logs'))).toMatch(/No such file or directory/);
  });
});

describe('the files the server created on its first start', () => {
  const modeOf = async (p: string): Promise<string> => ((await fs.stat(p)).mode & 0o777).toString(8);

  it('when the data dir, event store, token file, blobs and CI logs were created, then only the server’s user can read them', async () => {
    expect(await modeOf(dataDir)).toBe('700');
    expect(await modeOf(path.join(dataDir, 'api-token'))).toBe('600');
    for (const suffix of ['', '-wal', '-shm']) expect(await modeOf(path.join(dataDir, `events.sqlite${suffix}`))).toBe('600');
    const blobs = path.join(dataDir, 'blobs');
    expect(await modeOf(blobs)).toBe('700');
    const [fan] = await fs.readdir(blobs);
    expect(await modeOf(path.join(blobs, fan as string))).toBe('700');
    const [blob] = await fs.readdir(path.join(blobs, fan as string));
    expect(await modeOf(path.join(blobs, fan as string, blob as string))).toBe('600');
    const logs = path.join(dataDir, 'ci-logs');
    expect(await modeOf(logs)).toBe('700');
    const [run] = await fs.readdir(logs);
    expect(await modeOf(path.join(logs, run as string))).toBe('700');
    expect(await modeOf(path.join(logs, run as string, 'probe.log'))).toBe('600');
  });
});

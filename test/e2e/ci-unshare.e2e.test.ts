import { promises as fs } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { commitOnBranch, createRepoWithCommits, makeTempDir, openPr, removeTempDir } from '@railyard/testkit';
import { client, REPO } from './support/client';
import { eventually } from './support/engine-world';
import { startReadmeServer, type RunningProcess } from './support/processes';

/**
 * Issue 25, item 4: the README's first command is enough on a machine without bubblewrap. A real
 * server whose PATH holds every program of the system's PATH but `bwrap` runs its checks in the util-linux
 * unshare sandbox: a good PR merges, a failing one fails, and the check sees neither the token file nor the event store.
 * The PATH is a directory of links under /usr/local/lib because the sandbox shows /usr to the check
 * (its `env` and `bash` are found on the same PATH); where that is not writable the suite is skipped.
 */
jest.setTimeout(240_000);

let tmp: string;
let bin: string | undefined;
let dataDir: string;
let server: RunningProcess | undefined;
let admin: ReturnType<typeof client>;
let adminToken: string;

const settled = (n: number): Promise<string> =>
  eventually(
    `PR ${n} to settle`,
    async () => {
      const s = (await admin.getPr(n)).body.state as string;
      return ['merged', 'failed', 'cancelled'].includes(s) ? s : undefined;
    },
    180_000,
  );

beforeAll(async () => {
  tmp = await makeTempDir('railyard-e2e-');
  try {
    bin = await fs.mkdtemp('/usr/local/lib/railyard-e2e-path-');
  } catch {
    console.log('SKIPPED ci-unshare: /usr/local/lib is not writable, so no PATH without bwrap can be shown to checks');
    return;
  }
  await fs.chmod(bin, 0o755);
  // The system's usual PATH (pivot_root, used by the unshare sandbox, is in sbin), less bwrap; the first of a name wins.
  for (const dir of ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin'])
    for (const name of await fs.readdir(dir).catch(() => [] as string[]))
      if (name !== 'bwrap') await fs.symlink(path.join(dir, name), path.join(bin, name)).catch(() => undefined);
  dataDir = path.join(tmp, 'data');
  const started = await startReadmeServer(dataDir, { PATH: bin });
  server = started.server;
  adminToken = started.adminToken;
  admin = client(server.url, adminToken);
  const gitRoot = path.join(dataDir, 'git');
  await createRepoWithCommits(gitRoot, REPO, { files: { 'README.md': '# widgets\n' } });
  await commitOnBranch(gitRoot, REPO, {
    branch: 'main',
    files: {
      '.railyard.yml': 'ci:\n  test: "bash check.sh"\nmerge:\n  required_statuses: [test]\n',
      // Its checkout lies under the data dir at its host path, so the data dir's own files are what must be missing.
      'check.sh': `cat ${path.join(dataDir, 'api-token')}\ntest -e ${path.join(dataDir, 'events.sqlite')} && echo "== the event store is visible"\ntest ! -e fail.flag\n`,
    },
  });
  await commitOnBranch(gitRoot, REPO, { branch: 'good', files: { 'good.txt': 'ok\n' } });
  await openPr(gitRoot, { repo: REPO, number: 1, head: 'good', base: 'main' });
  await commitOnBranch(gitRoot, REPO, { branch: 'bad', files: { 'fail.flag': 'x\n' } });
  await openPr(gitRoot, { repo: REPO, number: 2, head: 'bad', base: 'main' });
  expect((await admin.createQueue({ flakeRetries: 0 })).status).toBe(200);
});

afterAll(async () => {
  await server?.stop();
  if (bin) await fs.rm(bin, { recursive: true, force: true });
  if (tmp) await removeTempDir(tmp);
});

describe('the README flow without bubblewrap', () => {
  it('when bwrap is not on the PATH, then checks run in the unshare sandbox: a good PR merges and a failing one fails', async () => {
    if (!server) return;
    expect(server.output()).toMatch(/checks run in the util-linux unshare sandbox/);
    expect((await admin.submit(1)).status).toBe(200);
    expect(await settled(1)).toBe('merged');
    expect((await admin.submit(2)).status).toBe(200);
    expect(await settled(2)).toBe('failed');
    const runs = await fs.readdir(path.join(dataDir, 'ci-logs'));
    for (const run of runs) {
      const log = (await request(server.url).get(`/ci/logs/${run}/test`).set('x-api-token', adminToken)).text;
      expect(log).toContain('api-token');
      expect(log).not.toContain('== the event store is visible');
      expect(log).not.toContain(adminToken);
    }
    expect(runs.length).toBeGreaterThanOrEqual(2);
  });
});

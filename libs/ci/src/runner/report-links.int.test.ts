import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { commitOnBranch } from '@railyard/testkit';
import type { UploadReportsInput } from './local-ci-runner';
import type { CheckFinished } from './outcome';
import { RunnerBed } from './testing/runner-bed';

/**
 * Issue 25: `reports:` is the pull request's, and so is every file and link of its checkout. The runner
 * reads reports as the server's own user, so a link committed in the tested tree must never make it
 * read (or list) anything outside the checkout, and nothing such a link does may turn the check's
 * failure into an infrastructure error.
 */
jest.setTimeout(60_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const bed = new RunnerBed(repo);
let seq = 0;

const PRIVATE_CASE = 'private-case-of-the-server-0451';

/** Runs a failing check of a commit holding `links` and `reports`; answers its status, log, outcome and uploads. */
const runWithLinks = async (links: Record<string, string>, reports: string[], command = 'exit 1') => {
  const sha = await commitOnBranch(bed.gitRoot, repo, {
    branch: `railyard-merge/pr-${++seq}/x`,
    files: { '.railyard.yml': `ci:\n  test: ${JSON.stringify(command)}\nreports: ${JSON.stringify(reports)}\n` },
    links,
  });
  const id = `00000000-0000-4000-a000-${String(seq).padStart(12, '0')}`;
  const uploads: UploadReportsInput[] = [];
  const finished: CheckFinished[] = [];
  const r = bed.runner({ uploadReports: async (input) => void uploads.push(input) }, finished);
  await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
  await r.whenDone(id);
  const status = (await bed.statuses.list(repo, sha)).find((s) => s.context === 'test');
  const uploaded = uploads.flatMap((u) => u.files.map((f) => f.toString('utf8')));
  return { status, log: await bed.logOf(id, 'test'), outcome: finished[0]?.outcome, uploaded };
};

describe('report files the pull request links elsewhere', () => {
  it('when a report is a link to a private JUnit file in the data dir, or a glob runs through a link to the data dir, then nothing of it is read or listed and the check fails on its exit code', async () => {
    const secret = path.join(bed.root, 'private-junit.xml');
    await fs.writeFile(secret, `<testsuite name="s"><testcase name="${PRIVATE_CASE}"><failure/></testcase></testsuite>\n`, { mode: 0o600 });
    const { status, log, outcome, uploaded } = await runWithLinks({ 'junit.xml': secret, data: bed.root }, ['junit.xml', 'data/**']);
    expect(status).toMatchObject({ state: 'failure', description: 'exit code 1' });
    expect(outcome).toMatchObject({ kind: 'failed', exitCode: 1 });
    expect(uploaded.join('')).not.toContain(PRIVATE_CASE);
    // The data dir's listing (its event store, its logs) never reaches the check's log.
    expect(log).not.toMatch(/events\.sqlite|private-junit|ci-logs/);
    expect(log).toMatch(/# report skipped: junit\.xml \(a symbolic link, not followed\)/);
    expect(log).toMatch(/# report skipped: data \(a symbolic link, not followed\)/);
  });

  it('when a report is reached through a link to /proc/self, then the server’s environment is not read', async () => {
    const { status, uploaded, log } = await runWithLinks({ r: '/proc/self', 'env.xml': '/proc/self/environ' }, ['r/environ', 'env.xml']);
    expect(status).toMatchObject({ state: 'failure', description: 'exit code 1' });
    expect(uploaded).toEqual([]);
    expect(log).not.toContain('# reports: ');
  });

  it('when a report is /proc/self/mem through a link, then the failing check is a failure, not a runner error', async () => {
    const { status, outcome } = await runWithLinks({ r: '/proc/self' }, ['r/mem']);
    expect(status).toMatchObject({ state: 'failure', description: 'exit code 1' });
    expect(outcome).toMatchObject({ kind: 'failed' });
  });

  it('when the check leaves a named pipe, a directory and a link where reports are expected, then it is judged at once on its exit code and the real report still goes up', async () => {
    const { status, uploaded, log } = await runWithLinks(
      {},
      ['out/*.xml'],
      'mkdir -p out/dir.xml && mkfifo out/pipe.xml && ln -s /etc/passwd out/link.xml && echo "<testsuite name=real/>" > out/real.xml; exit 1',
    );
    expect(status).toMatchObject({ state: 'failure', description: 'exit code 1' });
    expect(uploaded.map((u) => u.trim())).toEqual(['<testsuite name=real/>']);
    expect(log).toContain('# reports: out/real.xml');
    expect(log).toMatch(/# report skipped: out\/pipe\.xml \(not a regular file\)/);
  });
});

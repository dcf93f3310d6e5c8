import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import type { CommitStatus } from '@railyard/githost';
import { commitOnBranch, eventually } from '@railyard/testkit';
import { DEFAULT_CHECK_LIMITS, type CheckLimits } from './limits/limits';
import type { CheckFinished } from './outcome';
import { RunnerBed } from './testing/runner-bed';

/**
 * Issue 25: a check that forks, allocates or writes without bound is stopped at its limit, fails with a
 * reason naming it, and holds nothing another check needs. Real child processes in the real sandbox;
 * on a host without cgroup v2 (this one has v1) the fallback holds them: rlimits, a uid of the check's
 * own, a tmpfs for its disk, the runner's watch (docs/security.md, "What a check can use").
 */
jest.setTimeout(120_000);

const AS_ROOT = process.getuid?.() === 0;
// Without root and without cgroups, the runner cannot see a check's processes apart from its own:
// the limits still hold (per user namespace), but a check at them is not named (docs/security.md).
if (!AS_ROOT) process.stderr.write('\nlimit cases naming processes, memory and disk SKIPPED: they need root (or cgroup v2) here\n');
const itAsRoot = AS_ROOT ? it : it.skip;

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const limits: CheckLimits = { ...DEFAULT_CHECK_LIMITS, processes: 64, memoryMib: 256, diskMib: 16, logMib: 1 };
const bed = new RunnerBed(repo, { limits, concurrency: 2 });
let seq = 0;

const runId = (): string => `00000000-0000-4000-b000-${String(++seq).padStart(12, '0')}`;

const commitCheck = (command: string): Promise<string> =>
  commitOnBranch(bed.gitRoot, repo, {
    branch: `railyard-merge/pr-${++seq}/x`,
    files: { '.railyard.yml': `ci:\n  hog: ${JSON.stringify(command)}\n` },
  });

const statusOf = async (sha: string): Promise<CommitStatus | undefined> =>
  (await bed.statuses.list(repo, sha)).find((s) => s.context === 'hog');

/** Runs `command` as a check alone and answers its final status and what became of it. */
const runAlone = async (command: string) => {
  const sha = await commitCheck(command);
  const id = runId();
  const finished: CheckFinished[] = [];
  const r = bed.runner({}, finished);
  await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
  await r.whenDone(id);
  return { status: await statusOf(sha), outcome: finished[0]?.outcome, log: await bed.logOf(id, 'hog') };
};

/** The checkout of the (only) attempt of a run, on the host. */
const checkoutOf = async (testRunId: string): Promise<string | undefined> => {
  const runDir = path.join(bed.root, 'ci-work', testRunId);
  const attempt = (await fs.readdir(runDir).catch(() => [] as string[])).find((e) => !e.endsWith('.json'));
  return attempt && path.join(runDir, attempt, 'src');
};

const exists = (file: string): Promise<boolean> =>
  fs.stat(file).then(
    () => true,
    () => false,
  );

describe('the limits of a check', () => {
  itAsRoot(
    'when a check forks without bound, then it fails naming the process limit, and a check running beside it still gets its own processes',
    async () => {
      // The hog takes 40 processes and holds them; once the neighbour has forked its own 40 (80 > 64: a
      // budget per uid would refuse it), the hog forks without end.
      const hogSha = await commitCheck(
        'for i in $(seq 40); do sleep 600 & done; touch held; while [ ! -f grow ]; do sleep 0.1; done; while :; do sleep 600 & done',
      );
      const neighbourSha = await commitOnBranch(bed.gitRoot, repo, {
        branch: `railyard-merge/pr-${++seq}/x`,
        files: {
          '.railyard.yml': `ci:\n  neighbour: ${JSON.stringify('while [ ! -f go ]; do sleep 0.1; done; for i in $(seq 40); do sleep 600 & done; echo forked-40; kill $(jobs -p)')}\n`,
        },
      });
      const finished: CheckFinished[] = [];
      const r = bed.runner({}, finished);
      const [hog, neighbour] = [runId(), runId()];
      await r.trigger({ repo, sha: hogSha, branch: 'b', testRunId: hog, timeoutMinutes: 5 });
      await r.trigger({ repo, sha: neighbourSha, branch: 'b', testRunId: neighbour, timeoutMinutes: 5 });
      let held = '';
      await eventually(
        async () => {
          held = (await checkoutOf(hog)) ?? '';
          return held !== '' && (await exists(path.join(held, 'held')));
        },
        'the hog to hold 40 processes',
        60_000,
      );
      let neighbourDir = '';
      await eventually(async () => (neighbourDir = (await checkoutOf(neighbour)) ?? '') !== '', 'the neighbour’s checkout', 60_000);
      await fs.writeFile(path.join(neighbourDir, 'go'), '');
      await r.whenDone(neighbour);
      expect((await bed.statuses.list(repo, neighbourSha))[0]).toMatchObject({ state: 'success' });
      expect(await bed.logOf(neighbour, 'neighbour')).toContain('forked-40');

      await fs.writeFile(path.join(held, 'grow'), '');
      await r.whenDone(hog);
      expect(await statusOf(hogSha)).toMatchObject({
        state: 'failure',
        description: 'stopped at a limit: reached its limit of 64 processes (RAILYARD_CI_MAX_PROCESSES)',
      });
      expect(finished.find((f) => f.testRunId === hog)?.outcome).toMatchObject({ kind: 'failed', limit: { name: 'processes' } });
    },
  );

  itAsRoot('when a check’s processes together allocate past its memory, then it fails naming the memory limit', async () => {
    // Four processes of 100 MiB each: each within RLIMIT_DATA, together past the 256 MiB of the check.
    const grab = `node -e 'const b = Buffer.alloc(100 << 20, 1); setInterval(() => b[0]++, 1000)'`;
    const { status, outcome } = await runAlone(`for i in 1 2 3 4; do ${grab} & done; wait`);
    expect(status).toMatchObject({
      state: 'failure',
      description: 'stopped at a limit: passed its memory limit of 256 MiB (RAILYARD_CI_MEMORY_MIB)',
    });
    expect(outcome).toMatchObject({ kind: 'failed', limit: { name: 'memory' } });
  });

  it('when one process allocates past the memory limit, then it cannot have it and the check fails', async () => {
    // Without a cgroup, RLIMIT_DATA refuses the allocation (Node aborts); with one, the kernel's OOM kill does.
    const { status, log } = await runAlone(`node -e 'Buffer.alloc(512 << 20, 1); console.log("allocated")'`);
    expect(status).toMatchObject({ state: 'failure' });
    expect(log).not.toMatch(/^allocated$/m);
  });

  itAsRoot(
    'when a check writes files without bound, then it fails naming the disk limit, and nothing of it lands on the data dir',
    async () => {
      const { status } = await runAlone('cat /dev/zero > big; sleep 600');
      expect(status).toMatchObject({
        state: 'failure',
        description: 'stopped at a limit: filled its disk limit of 16 MiB (RAILYARD_CI_DISK_MIB)',
      });
      expect(await fs.readdir(path.join(bed.root, 'ci-work'))).toEqual([]);
    },
  );

  it('when a check writes its log without bound, then it is stopped at the log limit, which its status names, and the log is cut there', async () => {
    const { status, log } = await runAlone('yes railyard');
    expect(status).toMatchObject({
      state: 'failure',
      description: 'stopped at a limit: passed its log limit of 1 MiB (RAILYARD_CI_LOG_MIB)',
    });
    expect(Buffer.byteLength(log)).toBeLessThan(1024 * 1024 + 1024);
    expect(log).toMatch(/\n# log cut at 1 MiB \(RAILYARD_CI_LOG_MIB\)\n# stopped at a limit: passed its log limit/);
  });

  it('when checks stay within their limits, then they pass as before', async () => {
    const { status } = await runAlone('for i in $(seq 20); do sleep 0.01 & done; wait; head -c 1000000 /dev/zero > f; echo done');
    expect(status).toMatchObject({ state: 'success' });
  });
});

import { execFile, execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { recoverWorkDir } from './work-dir';

const run = promisify(execFile);
const AS_ROOT = process.getuid?.() === 0;
if (!AS_ROOT) process.stderr.write('\nwork-dir recovery case with tmpfs mounts SKIPPED: mounting needs root\n');
const itAsRoot = AS_ROOT ? it : it.skip;

/** A pid no process has now: a child that already ended. */
const deadPid = (): number => Number(execFileSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).trim());

describe('recovery of a dead runner’s attempts', () => {
  let workDir: string;
  beforeEach(async () => {
    workDir = await makeTempDir('railyard-work-dir-');
  });
  afterEach(async () => {
    // Whatever a failed case left mounted, so the directory can go.
    for (let i = 0; i < 3; i++) await run('umount', ['--lazy', '--', path.join(workDir, 'run', 'attempt')]).catch(() => undefined);
    await removeTempDir(workDir);
  });

  // A runner killed while its `mount` of the attempt's tmpfs was still running leaves a mount that can
  // land after the next runner's recovery unmounted the directory: the removal then met EBUSY and the
  // engine failed to start (seen in engine-rolling-restart at load 20). Two stacked mounts leave the
  // directory a mount point after one unmount, as that late mount does.
  itAsRoot('when a leftover attempt is still a mount point after one unmount, then recovery unmounts again and removes it', async () => {
    const attempt = path.join(workDir, 'run', 'attempt');
    await fs.mkdir(attempt, { recursive: true });
    await fs.writeFile(`${attempt}.owner.json`, JSON.stringify({ pid: deadPid(), runner: 'gone', check: 'test' }));
    for (let i = 0; i < 2; i++) await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'railyard-check', attempt]);

    expect(await recoverWorkDir(workDir)).toBe(1);
    expect(existsSync(attempt)).toBe(false);
    expect(existsSync(`${attempt}.owner.json`)).toBe(false);
  });
});

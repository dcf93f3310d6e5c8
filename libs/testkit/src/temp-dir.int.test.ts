import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, removeTempDir } from './temp-dir';

describe('removeTempDir', () => {
  it('when a process is still writing into the directory for a moment, then the removal waits it out instead of failing with ENOTEMPTY', async () => {
    const dir = await makeTempDir('railyard-rm-race-');
    // Deep, wide trees so that removing them takes as long as the writer runs: the ENOTEMPTY race of
    // a check or a git process that outlives the test by a few hundred milliseconds.
    for (let i = 0; i < 40; i++) {
      const sub = path.join(dir, `tree-${i}`, 'a', 'b');
      await fs.mkdir(sub, { recursive: true });
      await Promise.all(Array.from({ length: 25 }, (_, j) => fs.writeFile(path.join(sub, `f${j}`), 'x')));
    }
    // It writes for 3 s, twice what Node's own retries of the removal last (about 1.5 s).
    const writer = spawn('sh', [
      '-c',
      `end=$(($(date +%s) + 3)); i=0; while [ "$(date +%s)" -lt $end ]; do mkdir -p "$1/tree-$((i % 40))/a/b/late-$i" 2>/dev/null; i=$((i+1)); done`,
      'sh',
      dir,
    ]);
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    await new Promise((r) => setTimeout(r, 20));
    await removeTempDir(dir);
    await exited;
    // The writer may have made a last directory after the removal: what matters is that it did not throw.
    await removeTempDir(dir);
    await expect(fs.stat(dir)).rejects.toThrow(/ENOENT/);
    // Seconds of writing and a thousand files: more than jest's default 5 s on a loaded machine.
  }, 60_000);
});

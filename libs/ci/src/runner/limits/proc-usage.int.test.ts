import { spawn } from 'node:child_process';
import { usageByUid } from './proc-usage';

describe('what processes use, by uid, from /proc', () => {
  it('when this process’s uid and one without processes are asked for, then only this one is answered, with its tasks', async () => {
    const uid = process.getuid?.() ?? 0;
    const child = spawn('sleep', ['30']);
    try {
      const usage = await usageByUid(new Set([uid, 2_147_000_000]));
      expect(usage.has(2_147_000_000)).toBe(false);
      // This process (its threads count) and the sleeping child at least.
      expect(usage.get(uid)?.tasks).toBeGreaterThanOrEqual(2);
      expect(usage.get(uid)?.memoryBytes).toBeGreaterThan(0);
    } finally {
      child.kill();
    }
  });
});

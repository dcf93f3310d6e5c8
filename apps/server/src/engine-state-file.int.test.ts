import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RailyardConfig } from '@railyard/runtime';
import { ENGINE_STATE_FILE, EngineStateFile, engineHeadPosition } from './engine-state-file';

describe('the embedded engine snapshot as retention sees it', () => {
  it('when the engine saved a snapshot, then its head position is what retention keeps; before that, none', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'engine-head-'));
    const config = { eventStore: { kind: 'sqlite', file: path.join(dir, 'events.sqlite') } } as unknown as RailyardConfig;
    try {
      expect(engineHeadPosition(config)).toBeNull();
      const file = new EngineStateFile(path.join(dir, ENGINE_STATE_FILE));
      expect(engineHeadPosition(config)).toBeNull();
      await file.save({ schema: 1, position: 42n, eventId: 'e-42', queues: [] }, []);

      expect(engineHeadPosition(config)).toBe(42n);
      await file.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

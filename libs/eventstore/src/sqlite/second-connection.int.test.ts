import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent } from '../port';
import { SqliteEventStore } from './sqlite-event-store';

/**
 * One process may open the log twice (two stores on the same file, as the embedded server's engine
 * thread once did). POSIX locks belong to the process: closing any descriptor of the file drops them all, so the
 * second open must not open and close the existing file itself, or another process (a CLI reading
 * history) may take the file as unused, checkpoint and delete the write-ahead log under the server.
 */

const event = (n: number): NewEvent => ({
  eventId: randomUUID(),
  type: 'Numbered',
  data: { n },
  metadata: { schemaVersion: 1, actor: 'test', correlationId: randomUUID(), at: '2025-01-01T00:00:00.000Z' },
});

/** This process's POSIX locks on the file, as the kernel lists them. */
const locksOn = (file: string): string[] => {
  const inode = `:${statSync(file).ino} `;
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((l) => l.includes(inode) && l.split(/\s+/).includes(String(process.pid)));
};

describe('a second SQLite connection to the log in the same process', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'railyard-second-connection-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('when a second store opens the file, then the first keeps its shared lock on it', async () => {
    const file = join(dir, 'events.sqlite');
    const first = new SqliteEventStore({ file });
    await first.append('s-1', [event(1)], 'no_stream');
    await first.readStream('s-1');
    expect(locksOn(file)).toHaveLength(1);

    const second = new SqliteEventStore({ file });
    await second.readStream('s-1');
    try {
      expect(locksOn(file)).toHaveLength(1);
    } finally {
      await second.close();
      await first.close();
    }
  });
});

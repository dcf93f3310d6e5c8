import { expiresStreamsByAge } from '@railyard/eventstore';
import { openEventStore } from './adapters';

// Nothing listens there: the client connects on its first call, and none is made.
const KURRENT = { kind: 'kurrent' as const, url: 'kurrentdb://127.0.0.1:1?tls=false' };

describe('openEventStore: commit-status retention on KurrentDB (D314)', () => {
  it('when the store is KurrentDB and retention is 30 days, then commit-status streams get a $maxAge of 30 days', async () => {
    const store = await openEventStore({ eventStore: KURRENT, retention: { days: 30, sweepMinutes: 60 } });
    try {
      expect(expiresStreamsByAge(store) && store.streamMaxAge).toEqual({ prefix: 'commit-status-', seconds: 2_592_000 });
    } finally {
      await store.close();
    }
  });

  it('when retention keeps everything (0 days), then no stream is given an age', async () => {
    const store = await openEventStore({ eventStore: KURRENT, retention: { days: 0, sweepMinutes: 60 } });
    try {
      expect(expiresStreamsByAge(store) && store.streamMaxAge).toBeNull();
    } finally {
      await store.close();
    }
  });
});

import { prSubmitted, queueCreated, RecordedEventFactory, testQueueId } from '../../testing';
import { MemoryReadModelStore } from './store';

describe('MemoryReadModelStore', () => {
  const queueId = testQueueId();
  const at = '2026-01-01T00:00:00.000Z';

  it('when a reader tries to change a view it was handed, then it throws and the model keeps its value', async () => {
    const store = new MemoryReadModelStore();
    await store.apply(new RecordedEventFactory().record(queueId, queueCreated(queueId, at), prSubmitted(1, at)));
    const pr = await store.getPr(queueId, 1);
    expect(() => {
      (pr as { prTitle: string }).prTitle = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      (pr as { readiness: { hasImpactedTargets: boolean } }).readiness.hasImpactedTargets = true;
    }).toThrow(TypeError);
    const again = await store.getPr(queueId, 1);
    expect(again?.prTitle).not.toBe('changed');
    expect(again?.readiness.hasImpactedTargets).toBe(false);
  });
});

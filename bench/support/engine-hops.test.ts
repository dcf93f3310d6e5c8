import { Histogram, Registry } from 'prom-client';
import { meanMsBy } from './engine-hops';

describe('mean milliseconds by label from a histogram', () => {
  it('when hops are observed, then each label gets the mean of its own observations and their count', async () => {
    const h = new Histogram<'hop'>({ name: 'hops_test_seconds', help: 'test', labelNames: ['hop'], registers: [new Registry()] });
    h.observe({ hop: 'decided' }, 0.01);
    h.observe({ hop: 'decided' }, 0.03);
    h.observe({ hop: 'merge_landed' }, 0.1);

    expect(await meanMsBy(h, 'hop')).toEqual({ decided: { meanMs: 20, count: 2 }, merge_landed: { meanMs: 100, count: 1 } });
  });

  it('when nothing was observed, then there is nothing to report', async () => {
    const h = new Histogram<'hop'>({ name: 'empty_test_seconds', help: 'test', labelNames: ['hop'], registers: [new Registry()] });
    expect(await meanMsBy(h, 'hop')).toEqual({});
  });
});

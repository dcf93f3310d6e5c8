import { Registry } from 'prom-client';
import { collectProcessMetrics, registryText } from './process-metrics';

describe('collectProcessMetrics and registryText', () => {
  it('when collected on a fresh registry, then the process_* and nodejs_* series are there and a second call changes nothing', async () => {
    const registry = new Registry();
    collectProcessMetrics(registry);
    expect(() => collectProcessMetrics(registry)).not.toThrow();
    const text = await registryText(registry);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_total_bytes \d/m);
    expect(text.split('\n').filter((l) => l === '# TYPE process_cpu_user_seconds_total counter')).toHaveLength(1);
  });

  it('when scraped before the event loop was first measured, then no NaN sample is served', async () => {
    const registry = new Registry();
    collectProcessMetrics(registry);
    // What prom-client itself prints at this moment, which is why the samples are dropped.
    expect(await registry.metrics()).toMatch(/^nodejs_eventloop_lag_mean_seconds Nan$/m);
    const text = await registryText(registry);
    expect(text).not.toMatch(/\sNa[Nn]$/im);
    // The family stays (its HELP and TYPE); only the sample without a value goes. test/e2e/process-operations
    // parses real scrapes with a strict parser.
    expect(text).toContain('# TYPE nodejs_eventloop_lag_mean_seconds gauge');
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
  });
});

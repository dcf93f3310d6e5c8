import { Counter, Histogram, Registry } from 'prom-client';
import { addThreadSeries, collectProcessMetrics, registryText } from './process-metrics';

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

  describe('with another thread’s series added', () => {
    // Each thread loads the metric modules, so both hold the same series; only one counts a given event.
    const seriesOn = (registry: Registry) => ({
      failures: new Counter({ name: 'x_failures_total', help: 'h', labelNames: ['code'], registers: [registry] }),
      seconds: new Histogram({ name: 'x_seconds', help: 'h', buckets: [1, 5], registers: [registry] }),
    });

    it('when both threads counted, then one family is printed with the sums', async () => {
      const main = new Registry();
      const thread = new Registry();
      const [m, t] = [seriesOn(main), seriesOn(thread)];
      m.failures.inc({ code: 'A' });
      t.failures.inc({ code: 'A' }, 2);
      t.failures.inc({ code: 'B' });
      t.seconds.observe(3);
      const remove = addThreadSeries(() => thread.getMetricsAsJSON(), main);
      const text = await registryText(main);
      expect(text.split('\n').filter((l) => l === '# TYPE x_failures_total counter')).toHaveLength(1);
      expect(text).toMatch(/^x_failures_total\{code="A"\} 3$/m);
      expect(text).toMatch(/^x_failures_total\{code="B"\} 1$/m);
      expect(text).toMatch(/^x_seconds_bucket\{le="5"\} 1$/m);
      expect(text).toMatch(/^x_seconds_count 1$/m);
      remove();
      expect(await registryText(main)).toMatch(/^x_failures_total\{code="A"\} 1$/m);
    });

    it('when the other thread does not answer, then the scrape still has this thread’s series', async () => {
      const main = new Registry();
      seriesOn(main).failures.inc({ code: 'A' });
      const remove = addThreadSeries(() => Promise.reject(new Error('the thread is restarting')), main);
      expect(await registryText(main)).toMatch(/^x_failures_total\{code="A"\} 1$/m);
      remove();
    });
  });
});

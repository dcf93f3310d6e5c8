import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';
import { railyardRegistry } from './metrics-registry';

const collecting = new WeakSet<Registry>();

/**
 * prom-client's default process_* and nodejs_* series (CPU, memory, event-loop lag, GC, handles) on
 * the registry a process exposes. Called by each entry point once; a second call for the same
 * registry does nothing, since prom-client refuses to register a series twice.
 */
export const collectProcessMetrics = (registry: Registry = railyardRegistry): void => {
  if (collecting.has(registry)) return;
  collecting.add(registry);
  collectDefaultMetrics({ register: registry });
};

// A sample line whose value is NaN, in any spelling prom-client prints ("Nan" for the event-loop mean
// and stddev before the first measurement).
const NAN_SAMPLE = /^[^#].*\s(?:NaN|Nan|nan)$/;

/**
 * The registry as Prometheus text, without samples that have no value yet. prom-client prints the
 * event-loop lag mean and stddev as `Nan` until the first measurement, which strict parsers refuse; an
 * absent sample means the same to Prometheus ("no value") and keeps the scrape parseable.
 */
export const registryText = async (registry: Registry = railyardRegistry): Promise<string> =>
  (await registry.metrics())
    .split('\n')
    .filter((line) => !NAN_SAMPLE.test(line))
    .join('\n');

/** A label-less gauge of this process (e.g. whether it holds a lease), on the registry its metrics listener serves. */
export const processGauge = (name: string, help: string, registry: Registry = railyardRegistry): { set(value: number): void } =>
  new Gauge({ name, help, registers: [registry] });

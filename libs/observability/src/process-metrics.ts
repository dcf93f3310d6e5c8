import { AggregatorRegistry, collectDefaultMetrics, Gauge, type Registry } from 'prom-client';
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
  (await withThreadSeries(registry))
    .split('\n')
    .filter((line) => !NAN_SAMPLE.test(line))
    .join('\n');

/** What a registry holds, as prom-client hands it between threads (plain data). */
export type RegistrySnapshot = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

const threadSources = new Map<Registry, Set<() => Promise<RegistrySnapshot>>>();

/**
 * Adds another thread's series (the embedded server's engine thread) to what `registryText` prints
 * for `registry`, summed with this thread's series of the same name and labels: each thread has its
 * own copy of every metric object, and only one of them counts a given event. Until the returned
 * function is called. A source that fails adds nothing to that scrape.
 */
export const addThreadSeries = (source: () => Promise<RegistrySnapshot>, registry: Registry = railyardRegistry): (() => void) => {
  const sources = threadSources.get(registry) ?? new Set();
  threadSources.set(registry, sources);
  sources.add(source);
  return () => sources.delete(source);
};

const withThreadSeries = async (registry: Registry): Promise<string> => {
  const sources = [...(threadSources.get(registry) ?? [])];
  if (sources.length === 0) return registry.metrics();
  const others = await Promise.all(sources.map((s) => s().catch((): RegistrySnapshot => [])));
  return AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), ...others]).metrics();
};

/** A label-less gauge of this process (e.g. whether it holds a lease), on the registry its metrics listener serves. */
export const processGauge = (name: string, help: string, registry: Registry = railyardRegistry): { set(value: number): void } =>
  new Gauge({ name, help, registers: [registry] });

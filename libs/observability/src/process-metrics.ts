import { collectDefaultMetrics, type Registry } from 'prom-client';
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

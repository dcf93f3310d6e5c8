import { MemoryMetricsStore } from './memory-store';
import { metricsStoreContract } from './store.contract';

metricsStoreContract('memory', () => new MemoryMetricsStore());

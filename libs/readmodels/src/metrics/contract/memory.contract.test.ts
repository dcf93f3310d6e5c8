import { MemoryMetricsStore } from '../memory/store';
import { metricsStoreContract } from './metrics.contract';

metricsStoreContract('memory', () => new MemoryMetricsStore());

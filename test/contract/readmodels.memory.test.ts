import { MemoryReadModelStore } from '@railyard/readmodels';
import { readModelContract } from './readmodels.contract';

readModelContract('memory', () => new MemoryReadModelStore());

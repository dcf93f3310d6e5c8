import { MemoryReadModelStore } from '../memory/store';
import { readModelContract } from './queue.contract';

readModelContract('memory', () => new MemoryReadModelStore());

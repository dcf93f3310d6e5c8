import { MemoryReadModelStore } from '../queue/memory/store';
import { testRunContract } from './contract';

testRunContract('memory', () => new MemoryReadModelStore());

import { MemoryReadModelStore } from '../memory/store';
import { testRunContract } from './contract';

testRunContract('memory', () => new MemoryReadModelStore());

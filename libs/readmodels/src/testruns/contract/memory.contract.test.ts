import { MemoryReadModelStore } from '../../queue/memory/store';
import { testRunContract } from './testruns.contract';

testRunContract('memory', () => new MemoryReadModelStore());

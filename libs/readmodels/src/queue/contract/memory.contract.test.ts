import { MemoryReadModelStore } from '../memory/store';
import { pagingAfterEveryBatch } from '../../testing/paged';
import { readModelContract } from './queue.contract';

readModelContract('memory', () => new MemoryReadModelStore());
// Every document that can leave memory leaves it after each batch (D320): answers read back from the pages.
readModelContract('memory, paging out after every batch', pagingAfterEveryBatch);

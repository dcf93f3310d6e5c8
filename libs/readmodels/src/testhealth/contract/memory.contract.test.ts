import { MemoryTestHealthStore } from '../memory/store';
import { testHealthContract } from './testhealth.contract';

testHealthContract('memory', (blobs, options) => new MemoryTestHealthStore({ blobs, ...options }));

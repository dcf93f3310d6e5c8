export * from './bound';
export * from './event-queue';
export * from './flake-draws';
export * from './invariants';
export * from './load-workloads';
export * from './prng';
export * from './result';
export * from './simulator';

export * from './targets';
export * from './workload';
export { World, targetsRefOf } from './world';

export * from './bound';
export * from './event-queue';
export * from './invariants';
export * from './load-workloads';
export * from './prng';
export * from './simulator';
export * from './sim-executor';
export * from './workload';
export { World, targetsRefOf } from './world';

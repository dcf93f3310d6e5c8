/**
 * The loop that drives one queue (plan, act on the code host and CI, record), and the two ports it acts
 * through. The engine, the simulator and in-process tests all use this one driver (docs/architecture.md).
 */
export type { CiPort, CiTrigger, RequiredStatusesAnswer } from './ci/port';
export * from './host/port';
export {
  QueueDriver,
  type DriverDeps,
  type DriverLogger,
  type DriverHop,
  type DriverStats,
  type FactsSource,
  type PassEnd,
  type QueueLog,
} from './queue-driver';

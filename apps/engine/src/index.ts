export type { CiPort, CiTrigger, RequiredStatusesAnswer } from './ci/port';
export { startEngine, type EngineHandle, type EngineOptions } from './engine';
export { EngineCommands, ENGINE_ACTOR } from './engine-commands';
export { FactsReader } from './facts';
export * from './host/port';
export {
  QueueDriver,
  type DriverDeps,
  type DriverLogger,
  type DriverStats,
  type FactsSource,
  type PassEnd,
  type QueueLog,
} from './queue-driver';
export { QueueLoop, DEFAULT_BACKOFF, type BackoffSettings, type LoopObserver } from './queue-loop';
export { localCodeHost, startEmbeddedEngine, type EmbeddedEngineInput } from './embedded';

export { startEngine, type EngineHandle, type EngineOptions } from './engine';
export { ENGINE_ACTOR, engineLog, engineWriter } from './engine-commands';
export { FactsReader } from './facts';
export { QueueLoop, DEFAULT_BACKOFF, type LoopObserver } from './queue-loop';
export { localCodeHost, startEmbeddedEngine, type EmbeddedEngineInput } from './embedded';
export {
  ENGINE_SNAPSHOT_SCHEMA,
  type EngineSnapshotHead,
  type EngineSnapshotSettings,
  type EngineSnapshotStore,
  type EngineSnapshotStream,
} from './state-snapshots';

export {
  runProjector,
  DEFAULT_BACKOFF,
  DEFAULT_BATCH_SIZE,
  type ProjectorOptions,
  type ProjectorHandle,
  type ProjectionTarget,
} from './run-projector';
export { runLeasedProjector, type LeasedProjectorOptions, type LeasedProjectorHandle, type ProjectorLease } from './leased';
export { projectorConfigFromEnv, type ProjectorConfig } from './config';
export { fanOut } from './fan-out';

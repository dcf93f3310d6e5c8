import type { BlobStore, EventStore } from '@railyard/eventstore';
import { LocalGitAdmin, LocalGitWriter, type GitHost } from '@railyard/githost';
import type { Logger } from '@railyard/observability';
import type { CiPort } from './ci/port';
import { startEngine, type EngineHandle } from './engine';

export interface EmbeddedEngineInput {
  eventStore: EventStore;
  /** Impacted-target lists, for parallel mode. */
  blobs?: BlobStore;
  gitRoot: string;
  gitHost: GitHost;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
  /** The CI the engine triggers and listens to (libs/ci's createLocalCi in the embedded server). */
  ci: CiPort;
}

/** `RAILYARD_ENGINE=off` leaves the queues to a standalone engine (`npm run start:engine`). */
export const engineEnabled = (env: NodeJS.ProcessEnv): boolean => (env.RAILYARD_ENGINE ?? 'on').toLowerCase() !== 'off';

export const engineTickMs = (env: NodeJS.ProcessEnv): number => {
  const n = Number(env.RAILYARD_ENGINE_TICK_MS ?? 1000);
  return Number.isInteger(n) && n >= 10 ? n : 1000;
};

/** The engine inside the embedded process, with the local git host and local CI. Null when switched off. */
export const startEmbeddedEngine = (input: EmbeddedEngineInput): (EngineHandle & { ci: CiPort }) | null => {
  const env = input.env ?? process.env;
  if (!engineEnabled(env)) return null;
  const { ci } = input;
  const engine = startEngine({
    eventStore: input.eventStore,
    gitRoot: input.gitRoot,
    gitHost: input.gitHost,
    writer: new LocalGitWriter({ root: input.gitRoot }),
    admin: new LocalGitAdmin({ root: input.gitRoot }),
    ci,
    logger: input.logger,
    ...(input.blobs ? { blobs: input.blobs } : {}),
    tickMs: engineTickMs(env),
    ...(input.now ? { now: input.now } : {}),
  });
  return {
    ...engine,
    ci,
    stop: () => engine.stop(),
  };
};

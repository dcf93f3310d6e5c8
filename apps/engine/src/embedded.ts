import type { BlobStore, EventStore } from '@railyard/eventstore';
import { LocalCodeHost } from '@railyard/githost';
import type { Logger } from '@railyard/observability';
import type { CiPort } from './ci/port';
import { startEngine, type EngineHandle } from './engine';

export interface EmbeddedEngineInput {
  eventStore: EventStore;
  /** Impacted-target lists, for parallel mode. */
  blobs?: BlobStore;
  gitRoot: string;
  logger: Logger;
  /** From libs/runtime's loadConfig (`config.engine`). */
  settings: { enabled: boolean; tickMs: number; verifyMs: number };
  now?: () => Date;
  /** The CI the engine triggers and listens to (libs/ci's createLocalCi in the embedded server). */
  ci: CiPort & { statusStore?: ConstructorParameters<typeof LocalCodeHost>[0]['statuses'] };
}

/** The local git host as the engine's code host, reading the CI's status store when it has one. */
export const localCodeHost = (gitRoot: string, ci: EmbeddedEngineInput['ci']): LocalCodeHost =>
  new LocalCodeHost({ root: gitRoot, ...(ci.statusStore ? { statuses: ci.statusStore } : {}) });

/** The engine inside the embedded process, with the local git host and local CI. Null when switched off. */
export const startEmbeddedEngine = (input: EmbeddedEngineInput): (EngineHandle & { ci: CiPort }) | null => {
  // Switched off (RAILYARD_ENGINE=off), the queues are left to a standalone engine (`npm run start:engine`).
  if (!input.settings.enabled) return null;
  const { ci } = input;
  const host = localCodeHost(input.gitRoot, ci);
  const engine = startEngine({
    eventStore: input.eventStore,
    host,
    ci,
    logger: input.logger,
    ...(input.blobs ? { blobs: input.blobs } : {}),
    tickMs: input.settings.tickMs,
    verifyMs: input.settings.verifyMs,
    ...(input.now ? { now: input.now } : {}),
  });
  return {
    ...engine,
    ci,
    stop: async () => {
      await engine.stop();
      await host.close();
    },
  };
};

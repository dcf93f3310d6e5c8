import type { BlobStore, EventStore } from '@railyard/eventstore';
import type { GithubParts } from '@railyard/github';
import { LocalCodeHost, type CommitStatusStore } from '@railyard/githost';
import type { Logger } from '@railyard/observability';
import { startEngine, type EngineHandle } from './engine';
import type { EngineSnapshotSettings } from './state-snapshots';
import { ciByRepo, codeHostByRepo, type HostRoute } from './host/by-host';
import type { CiPort, CodeHost } from '@railyard/queue-driver';

export interface EmbeddedEngineInput {
  eventStore: EventStore;
  /** Impacted-target lists, for parallel mode. */
  blobs?: BlobStore;
  gitRoot: string;
  logger: Logger;
  /** From libs/runtime's loadConfig (`config.engine`). */
  settings: { enabled: boolean; tickMs: number; verifyMs: number; mergeabilityPerSecond?: number };
  now?: () => Date;
  /** The CI the engine triggers and listens to (libs/ci's createLocalCi in the embedded server), with its status store. */
  ci: CiPort & { statusStore: CommitStatusStore };
  /** The GitHub App's code host and CI (libs/github openGithub), for repositories of its host; the caller closes it. */
  github?: GithubParts | null;
  /** Where the engine's state is saved and resumed from (D292); without it the engine reads the log from its start. */
  snapshots?: EngineSnapshotSettings;
}

/** The local git host as the engine's code host, reading the CI's status store. */
export const localCodeHost = (gitRoot: string, statuses: CommitStatusStore): LocalCodeHost =>
  new LocalCodeHost({ root: gitRoot, statuses });

/**
 * The engine's code host and CI: the local ones, and GitHub's for the repositories of its host name
 * when GitHub is configured. Closing the result closes the local host only; GitHub's parts belong to
 * whoever opened them (the API's webhook route feeds the same code host).
 */
export const hostsFor = (local: HostRoute, github?: GithubParts | null): { host: CodeHost; ci: CiPort } => {
  if (!github) return local;
  const routes = new Map<string, HostRoute>([[github.hostName, { host: github.host, ci: github.ci }]]);
  const host = codeHostByRepo(local, routes);
  return { host: { ...host, close: () => local.host.close() }, ci: ciByRepo(local, routes) };
};

/** The engine inside the embedded process, with the local git host and local CI (and GitHub's when configured). Null when switched off. */
export const startEmbeddedEngine = (input: EmbeddedEngineInput): (EngineHandle & { ci: CiPort }) | null => {
  // Switched off (RAILYARD_ENGINE=off), the queues are left to a standalone engine (`npm run start:engine`).
  if (!input.settings.enabled) return null;
  const { host, ci: routedCi } = hostsFor({ host: localCodeHost(input.gitRoot, input.ci.statusStore), ci: input.ci }, input.github);
  const { ci } = input;
  const engine = startEngine({
    eventStore: input.eventStore,
    host,
    ci: routedCi,
    logger: input.logger,
    ...(input.blobs ? { blobs: input.blobs } : {}),
    tickMs: input.settings.tickMs,
    verifyMs: input.settings.verifyMs,
    ...(input.settings.mergeabilityPerSecond !== undefined ? { mergeabilityPerSecond: input.settings.mergeabilityPerSecond } : {}),
    ...(input.now ? { now: input.now } : {}),
    ...(input.snapshots ? { snapshots: input.snapshots } : {}),
  });
  return {
    ...engine,
    ci,
    stop: async () => {
      await engine.stop();
      await host.close();
      await input.snapshots?.store.close();
    },
  };
};

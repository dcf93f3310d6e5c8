import type { GithubCodeHost } from './code-host';
import { hostEventsOf, type GithubHostEvent } from './host-events';

/**
 * Webhooks reach the API processes; the engine may run elsewhere (`npm run start:engine`). The API
 * turns each verified delivery into host events (hints naming what to re-read, never facts) and
 * publishes them on Redis; every engine process hands them to its GitHub code host. A hint lost on
 * the way costs only time: the engine's verification pass re-reads every queue (docs/github.md).
 */
export const githubHintsChannel = (namespace: string): string => `ry:{${namespace}}:github:hints`;

export interface HintPublisher {
  publish(channel: string, message: string): Promise<unknown>;
}

export interface HintSubscriber {
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  off(event: 'message', listener: (channel: string, message: string) => void): unknown;
}

/** Publishes the host events of one verified delivery; events that say nothing to the engine publish nothing. */
export const publishGithubHints = async (
  redis: HintPublisher,
  namespace: string,
  hostName: string,
  event: string,
  payload: unknown,
): Promise<number> => {
  const events = hostEventsOf(hostName, event, payload);
  if (events.length > 0) await redis.publish(githubHintsChannel(namespace), JSON.stringify(events));
  return events.length;
};

const KINDS = new Set(['pull', 'branch', 'status', 'mergeability', 'resync']);

/** Only well-formed events of this host pass: a message on the channel is input like any other. */
const validHints = (message: string, hostName: string): GithubHostEvent[] => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((e): e is GithubHostEvent => {
    const r = (e as { repo?: { host?: unknown; owner?: unknown; name?: unknown } } | null)?.repo;
    return (
      typeof e === 'object' &&
      e !== null &&
      KINDS.has((e as { kind?: unknown }).kind as string) &&
      r?.host === hostName &&
      typeof r.owner === 'string' &&
      typeof r.name === 'string'
    );
  });
};

/** Hands the hints published by API processes to `host`; answers the unsubscribe. */
export const subscribeGithubHints = async (
  redis: HintSubscriber,
  namespace: string,
  host: GithubCodeHost,
): Promise<() => Promise<void>> => {
  const channel = githubHintsChannel(namespace);
  const onMessage = (from: string, message: string): void => {
    if (from === channel) host.announce(validHints(message, host.host));
  };
  redis.on('message', onMessage);
  await redis.subscribe(channel);
  return async () => {
    redis.off('message', onMessage);
    await redis.unsubscribe(channel);
  };
};

import type { Octokit } from '@octokit/core';
import Bottleneck from 'bottleneck';
import type { Registry } from 'prom-client';
import { createLogger, railyardRegistry } from '@railyard/observability';
import { loadOctokit } from './octokit-modules';
import { githubRequestCounter, routeLabel } from './request-metrics';
import type { GithubSettings } from './settings';
import { InstallationTokenCache } from './token-cache';

/**
 * The GitHub App as Railyard talks to it: a JWT-authenticated client for the App's own endpoints and
 * one client per installation, each minting and renewing its token, serialising its writes, waiting
 * out rate limits and retrying only reads (docs/github.md).
 */

export type GithubOctokit = Octokit;

type LogMethod = (message: string, meta?: Record<string, unknown>) => unknown;

/** What the client logs through: a winston logger, or anything with these methods. */
export interface GithubLogger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

export interface GithubAppOptions {
  settings: GithubSettings;
  registry?: Registry;
  logger?: GithubLogger;
  /** Least time between two writes of one installation; GitHub asks for a second. */
  writeMinTimeMs?: number;
  /** Reads in flight at once per installation; GitHub asks for requests one at a time. */
  readConcurrency?: number;
  /** Milliseconds per second of `retry-after` and of the read retries' back-off; tests shrink it. */
  retryAfterUnitMs?: number;
  /** How often one request is retried after a rate limit before it fails. */
  rateLimitRetries?: number;
  /** How often a read is retried after a 5xx or a lost connection. */
  readRetries?: number;
  /** A token is renewed this long before GitHub says it expires. */
  tokenRefreshMarginMs?: number;
  now?: () => number;
}

export interface GithubApp {
  /** Authenticated as the App itself (a JWT): installations, and nothing in repositories. */
  readonly appOctokit: GithubOctokit;
  /** The client of one installation, made once and reused. */
  installation(installationId: number): Promise<GithubOctokit>;
  /** The App's installation on `owner/repo`, or null when it is not installed there. */
  installationIdFor(owner: string, repo: string): Promise<number | null>;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

type Plugin = (octokit: Octokit, options: Record<string, unknown>) => void;

/** Counts every attempt with its route template and status (the innermost wrapper, so retries count). */
const countRequests =
  (counter: ReturnType<typeof githubRequestCounter>, baseUrl: string): Plugin =>
  (octokit) => {
    octokit.hook.wrap('request', async (request, options) => {
      const route = routeLabel(options.method, options.url, baseUrl);
      try {
        const response = await request(options);
        counter.inc({ route, status: String(response.status) });
        return response;
      } catch (err) {
        const status = (err as { status?: unknown }).status;
        counter.inc({ route, status: typeof status === 'number' && status > 0 ? String(status) : 'error' });
        throw err;
      }
    });
  };

/** The App's own endpoints, among them the token request an installation's write may wait for. */
const isAppRoute = (url: string): boolean => url === '/app' || url.startsWith('/app/');

/**
 * One write in flight per installation, retries included. The throttling plugin spaces the starts of
 * writes, but it reschedules a rate-limited request with weight 0, outside its concurrency limit, so
 * a retried write can overlap the next one; this queue sits inside it and makes writes strictly serial.
 * Token requests pass by: a write waiting for its token would otherwise wait for itself.
 */
const serializeWrites =
  (queues: Bottleneck.Group): Plugin =>
  (octokit, options) => {
    const key = String((options.throttle as { id?: string } | undefined)?.id ?? 'default');
    octokit.hook.wrap('request', (request, endpoint) =>
      READ_METHODS.has(endpoint.method) || isAppRoute(endpoint.url)
        ? request(endpoint)
        : queues.key(key).schedule(async () => request(endpoint)),
    );
  };

/**
 * A write that failed may still have been carried out (a timeout after GitHub applied it), so it is
 * never repeated blindly: the caller re-reads and decides. A caller that knows a write is safe to
 * repeat may set `request.retries` itself.
 */
const retryReadsOnly: Plugin = (octokit) => {
  octokit.hook.before('request', (options) => {
    if (!READ_METHODS.has(options.method) && options.request?.retries === undefined) {
      options.request = { ...options.request, retries: 0 };
    }
  });
};

const logFor = (logger: GithubLogger) => ({
  debug: (message: string) => logger.debug(message, { component: 'octokit' }),
  info: (message: string) => logger.info(message, { component: 'octokit' }),
  warn: (message: string) => logger.warn(message, { component: 'octokit' }),
  error: (message: string) => logger.error(message, { component: 'octokit' }),
});

export const createGithubApp = async (opts: GithubAppOptions): Promise<GithubApp> => {
  const { App, Octokit: Core, throttling, retry } = await loadOctokit();
  const { settings } = opts;
  const logger: GithubLogger = opts.logger ?? createLogger('github');
  const unit = opts.retryAfterUnitMs ?? 1000;
  const writeMinTime = opts.writeMinTimeMs ?? 1000;
  const rateLimitRetries = opts.rateLimitRetries ?? 5;
  const counter = githubRequestCounter(opts.registry ?? railyardRegistry);
  const cache = new InstallationTokenCache(opts.tokenRefreshMarginMs ?? 5 * 60 * 1000, opts.now);
  // Shared by every client of this App, keyed by installation: one queue of writes per installation.
  const groups = {
    global: new Bottleneck.Group({ maxConcurrent: opts.readConcurrency ?? 1 }),
    write: new Bottleneck.Group({ maxConcurrent: 1, minTime: writeMinTime }),
    // Requests that notify people (comments) get three times the spacing, as GitHub's guidance asks.
    notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: 3 * writeMinTime }),
  };
  const onLimit =
    (kind: string) => (retryAfter: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
      const again = retryCount < rateLimitRetries;
      logger.warn(`GitHub ${kind} rate limit`, {
        route: `${options.method} ${options.url}`,
        retryAfterSeconds: retryAfter,
        retryCount,
        retrying: again,
      });
      return again;
    };

  const Plugged = Core.plugin(
    countRequests(counter, settings.apiUrl),
    serializeWrites(new Bottleneck.Group({ maxConcurrent: 1 })),
    retryReadsOnly,
    retry,
    throttling,
  );
  const RailyardOctokit = Plugged.defaults((options: Record<string, unknown>) => {
    const auth = options.auth as { appId?: unknown; installationId?: unknown } | undefined;
    const isAppAuth = typeof auth === 'object' && auth !== null && auth.appId !== undefined;
    const id = isAppAuth && auth.installationId !== undefined ? `installation-${String(auth.installationId)}` : `app-${settings.appId}`;
    return {
      ...options,
      baseUrl: settings.apiUrl,
      log: logFor(logger),
      ...(isAppAuth ? { auth: { ...auth, cache } } : {}),
      throttle: {
        id,
        ...groups,
        retryAfterBaseValue: unit,
        onRateLimit: onLimit('primary'),
        onSecondaryRateLimit: onLimit('secondary'),
      },
      // Rate limits (403, 429) are the throttling plugin's, which waits as GitHub says; left to the retry
      // plugin, a 429 would come back after its own short back-off instead of after retry-after.
      retry: { retries: opts.readRetries ?? 3, retryAfterBaseValue: unit, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
    };
  });

  const app = new App({
    appId: settings.appId,
    privateKey: settings.privateKey,
    Octokit: RailyardOctokit as typeof Core,
    log: logFor(logger),
  });
  const clients = new Map<number, Promise<GithubOctokit>>();

  return {
    appOctokit: app.octokit,
    installation: (installationId) => {
      let client = clients.get(installationId);
      if (client === undefined) {
        client = app.getInstallationOctokit(installationId) as Promise<GithubOctokit>;
        clients.set(installationId, client);
        client.catch(() => clients.delete(installationId));
      }
      return client;
    },
    installationIdFor: async (owner, repo) => {
      try {
        const { data } = await app.octokit.request('GET /repos/{owner}/{repo}/installation', { owner, repo });
        return data.id;
      } catch (err) {
        if ((err as { status?: number }).status === 404) return null;
        throw err;
      }
    },
  };
};

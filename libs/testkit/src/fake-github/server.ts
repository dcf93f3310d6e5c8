import { randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { verifyAppJwt, verifyInstallationToken, type Caller } from './auth';
import type { FakeCore } from './core';
import { conditional } from './conditional';
import { GithubHttpError, notFound } from './errors';
import type { Faults } from './faults';
import type { FakeInstallation, FakeRepo } from './model';
import type { RestOperation } from './operations';
import type { RequestLog } from './requests';
import { matchRoute } from './router';
import type { Handlers, Reply, RouteContext } from './routes/types';

/**
 * The HTTP side of the fake: one express handler that does what GitHub does before and after an
 * operation (count it, authenticate, spend the rate limit, meet injected faults, check the
 * repository is visible and the permission granted, validate the body) and checks every answer
 * against GitHub's schema of that operation.
 */

const HOUR_MS = 60 * 60 * 1000;

const LEVELS = { read: 1, write: 2 } as const;

const authenticate = (core: FakeCore, op: RestOperation, header: string | undefined): Caller => {
  if (op.permission.kind === 'jwt') return { kind: 'app', app: verifyAppJwt(core.state, header) };
  return verifyInstallationToken(core.state, header);
};

const checkPermission = (op: RestOperation, caller: Caller): void => {
  if (op.permission.kind !== 'repo' || caller.kind !== 'installation') return;
  const granted = caller.installation.permissions;
  const need = LEVELS[op.permission.level];
  const has = op.permission.scopes.some((scope) => {
    // Every installation may read metadata.
    if (scope === 'metadata' && need === LEVELS.read) return true;
    const level = granted[scope];
    return level !== undefined && LEVELS[level] >= need;
  });
  if (!has) throw new GithubHttpError(403, 'Resource not accessible by integration');
};

/** The repository in the path, if it exists and the caller may see it (GitHub answers 404 otherwise, never 403). */
const resolveRepo = (core: FakeCore, params: Record<string, string>, caller: Caller): FakeRepo | null => {
  if (params.owner === undefined || params.repo === undefined) return null;
  const repo = core.state.repoByName(params.owner, params.repo);
  if (!repo) throw notFound();
  if (caller.kind === 'installation') {
    const visible = core.state.installationRepos(caller.installation).some((r) => r.id === repo.id);
    if (!visible) throw notFound();
  }
  return repo;
};

/** Spends one request of the installation's hourly budget and returns the rate limit headers. */
const spendBudget = (core: FakeCore, installation: FakeInstallation | null): Record<string, string> => {
  const now = core.state.now().getTime();
  const budget = installation?.budget ?? { limit: 5000, used: 0, resetAt: now + HOUR_MS };
  if (now >= budget.resetAt) Object.assign(budget, { used: 0, resetAt: now + HOUR_MS });
  const headers = {
    'x-ratelimit-limit': String(budget.limit),
    'x-ratelimit-remaining': String(Math.max(0, budget.limit - budget.used - 1)),
    'x-ratelimit-used': String(Math.min(budget.limit, budget.used + 1)),
    'x-ratelimit-reset': String(Math.ceil(budget.resetAt / 1000)),
    'x-ratelimit-resource': 'core',
  };
  if (budget.used >= budget.limit) {
    throw new GithubHttpError(403, `API rate limit exceeded for installation ID ${installation?.id ?? 0}.`, {
      ...headers,
      'x-ratelimit-remaining': '0',
    });
  }
  budget.used += 1;
  return headers;
};

const parseBody = (req: Request): Record<string, unknown> => {
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new GithubHttpError(400, 'Problems parsing JSON');
};

export interface ServerParts {
  core: FakeCore;
  faults: Faults;
  requests: RequestLog;
  handlers: Handlers;
  baseUrl: () => string;
}

export const createApp = ({ core, faults, requests, handlers, baseUrl }: ServerParts): express.Express => {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.raw({ type: () => true, limit: '25mb' }));
  app.use(async (req: Request, res: Response) => {
    const startedAt = performance.now();
    const url = new URL(req.originalUrl, baseUrl());
    const match = matchRoute(req.method, url.pathname);
    let reply: Reply;
    let installationId: number | null = null;
    let rateHeaders: Record<string, string> = {};
    try {
      if (!match) throw notFound();
      const caller = authenticate(core, match.op, req.headers.authorization);
      const installation = caller.kind === 'installation' ? caller.installation : null;
      installationId = installation?.id ?? null;
      rateHeaders = spendBudget(core, installation);
      const body = parseBody(req);
      const request = { operation: match.op.id, params: match.params, body };
      const fault = faults.take(request, 'before');
      if (fault) throw faults.errorFor(fault, installationId);
      const repo = resolveRepo(core, match.params, caller);
      checkPermission(match.op, caller);
      const invalid = core.validator?.validateRequest(match.op.id, body) ?? [];
      if (invalid.length > 0) throw new GithubHttpError(422, `Invalid request.\n\n${invalid.join('\n')}`);
      const handler = handlers[match.op.id as keyof Handlers];
      if (!handler) throw notFound();
      const ctx: RouteContext = {
        core,
        op: match.op,
        params: match.params,
        query: url.searchParams,
        url: url.toString(),
        body,
        caller,
        repo,
        actor: caller.app.bot,
      };
      const answered = conditional(req.method, await handler(ctx), req.headers['if-none-match']);
      reply = answered.reply;
      if (answered.notModified && installation?.budget) {
        installation.budget.used = Math.max(0, installation.budget.used - 1);
        rateHeaders = { ...rateHeaders, 'x-ratelimit-remaining': String(installation.budget.limit - installation.budget.used) };
      }
      const after = faults.take(request, 'after');
      if (after) throw faults.errorFor(after, installationId);
    } catch (err) {
      if (!(err instanceof GithubHttpError)) {
        core.violations.push(`${req.method} ${url.pathname} threw: ${String((err as Error)?.stack ?? err)}`);
        reply = { status: 500, body: new GithubHttpError(500, 'Server Error').body() };
      } else {
        reply = { status: err.status, body: err.body(), headers: err.headers };
      }
    }
    if (core.behaviour.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, core.behaviour.latencyMs));
    const route = match ? `${match.op.method} ${match.op.path}` : `${req.method} (no such route)`;
    requests.record({
      operation: match?.op.id ?? 'unknown',
      route,
      status: reply.status,
      installationId,
      startedAt,
      endedAt: performance.now(),
    });
    if (match && core.validator) {
      const errors = core.validator.validateResponse(match.op.id, reply.status, reply.body);
      if (errors.length > 0) core.recordViolation(`${route} → ${reply.status}`, errors);
    }
    res.status(reply.status);
    res.set({
      'x-github-request-id': randomUUID().toUpperCase(),
      'x-github-media-type': 'github.v3; format=json',
      'x-github-api-version-selected': '2022-11-28',
      ...rateHeaders,
      ...reply.headers,
    });
    if (reply.body === undefined) res.end();
    else res.type('application/json; charset=utf-8').send(JSON.stringify(reply.body));
  });
  return app;
};

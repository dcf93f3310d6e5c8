import type { Router } from 'express';
import type { TestHealthReadModels } from '@railyard/readmodels';
import { requireToken } from '../../auth/middleware';
import type { Scope, TokenRegistry } from '@railyard/auth';
import { jsonBody } from '../../http/json-body';
import type { RouteContext } from '../route';
import type { TestHealthConfig } from './config';
import type { TestEvaluator } from './evaluator';
import type { UploadRecorder } from './recorder';
import type { RepoFacts } from '@railyard/testhealth';
import type { Clock, TestHealthWriter } from './writer';

/** What the test-health routes share; built once by createTestHealth. */
export interface TestHealthContext {
  config: TestHealthConfig;
  tokens: TokenRegistry;
  store: TestHealthReadModels;
  facts: RepoFacts;
  recorder: UploadRecorder;
  evaluator: TestEvaluator;
  writer: TestHealthWriter;
  clock: Clock;
  /** Base of html_url fields: RAILYARD_PUBLIC_URL, else the server's own address once it listens. */
  baseUrl: () => string;
}

/** A JSON POST endpoint behind a token scope (postRoute's shape, without needing the queue deps). */
export const jsonPost = (
  router: Router,
  tokens: TokenRegistry,
  path: string,
  scope: Scope,
  handler: (body: unknown, ctx: RouteContext) => Promise<unknown>,
): void => {
  router.post(path, requireToken(tokens, scope), jsonBody, async (req, res) => {
    const ctx = { actor: String(res.locals.actor), correlationId: String(res.locals.requestId), req, res };
    res.status(200).json((await handler(req.body, ctx)) ?? {});
  });
};

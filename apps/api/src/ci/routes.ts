import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { operationsRouter } from '../http/operations-router';
import { ciLogOperations } from '../routes/ci-logs';
import { pullPageOperations } from '../routes/pull-pages';
import { statusOperations } from '../routes/statuses';
import { testingDetailsOperations } from '../routes/testing-details';
import type { CiHttpDeps } from './deps';

/** The CI endpoints under /v1: commit statuses from an outside CI, and test runs. */
export const ciOperations = [...testingDetailsOperations, ...statusOperations];

/** The CI pages outside /v1 that statuses and test-run details link to: check logs, and the local host's PRs. */
export const ciPageOperations = [...ciLogOperations, ...pullPageOperations];

/** The CI endpoints under /v1, for buildApp's routers. */
export const ciRouters = (deps: ApiDeps, ci: CiHttpDeps): Router[] => [operationsRouter(ciOperations, { ...deps, ci })];

/** The CI pages (`/ci/logs/…`, `/repos/…/pulls/…`), for buildApp's page routers. */
export const ciPageRouters = (deps: ApiDeps, ci: CiHttpDeps): Router[] => [operationsRouter(ciPageOperations, { ...deps, ci })];

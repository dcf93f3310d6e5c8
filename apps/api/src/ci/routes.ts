import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { ciLogRoutes } from '../routes/ci-logs';
import { pullPageRoutes } from '../routes/pull-pages';
import { statusRoutes } from '../routes/statuses';
import { testingDetailsRoutes } from '../routes/testing-details';
import type { CiHttpDeps } from './deps';

/** The CI endpoints under /v1, for buildApp's extraRouters. */
export const ciRouters = (deps: ApiDeps, ci: CiHttpDeps): Router[] => [statusRoutes(deps, ci), testingDetailsRoutes(deps, ci)];

/**
 * The CI pages outside /v1, for buildApp's pageRouters: the check logs (`/ci/logs/…`) and the local
 * host's PR pages (`/repos/…/pulls/…`) that statuses and test-run details link to.
 */
export const ciPageRouters = (deps: ApiDeps, ci: CiHttpDeps): Router[] => [ciLogRoutes(deps, ci), pullPageRoutes(deps)];

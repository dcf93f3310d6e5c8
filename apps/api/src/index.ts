export * from './app';
export { OPERATIONS } from './operations';
export { TRUNK_CONTRACT_COMMIT, TRUNK_OPERATIONS, trunkOperationAt, type TrunkOperation } from './trunk/contract';
export type { AnyOperation, Operation } from './http/operation';
export * from './deps';
export * from './queue-commands';
export * from '@railyard/auth';
export * from './http/errors';
export * from './routes/impacted-targets';
export * from './routes/history';
export * from './routes/metrics';
export * from './test-health';
export * from './auth/rate-limit';
export { ciPageRouters, ciRouters } from './ci/routes';
export type { CiHttpDeps } from './ci/deps';
export * from './compose';
export { githubApiOf, openGithubApi, WEBHOOK_PATH, type GithubApiParts } from './github';

export * from './readiness/projection-health';

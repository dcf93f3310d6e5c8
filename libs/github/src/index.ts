export * from './settings';
export * from './github-app';
export * from './webhook-verifier';
export { GITHUB_REQUESTS_METRIC, githubRequestCounter, routeLabel } from './request-metrics';
export { InstallationTokenCache } from './token-cache';
export * from './events';
export * from './checks';
export * from './host';
export * from './test-health';

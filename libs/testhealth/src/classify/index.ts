export { classify, monitorActivations } from './classify';
export { pullRequestsImpactedLast7d, failureRateLast7d, failureRateLast24h, failuresBetween } from './impact';
export { isOutageUpload } from './outage-guard';
export { branchMatches } from './branch-glob';
export { classificationRules, DEFAULT_CLASSIFICATION_RULES, type ClassificationRules, type ClassificationRulesInput } from './rules';
export type { Activation, ActiveMonitor, Classification, MonitorName, RunOutcome, TestRun, TestStatus } from './types';

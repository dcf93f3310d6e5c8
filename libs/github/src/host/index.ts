export { GithubCodeHost, LANDED_MARKER, type GithubCodeHostOptions } from './code-host';
export { GithubCi, type GithubCiOptions } from './github-ci';
export { hostEventsOf, type GithubHostEvent } from './host-events';
export { mergeReports, checkRunState } from './statuses';
export { testBranchName, TEST_BRANCH_PREFIX, CARRY_BRANCH_PREFIX } from './test-branch';
export { checkRunPublisherOf, openGithub, type GithubParts } from './open';
export { forgetGitObjects } from './repo-api';
export { forkedRunVerifier, type ForkedRunVerdict, type ForkedRunVerify } from './forked-runs';

import type { TriggerInput } from './local-ci-runner';

// Variables that would point git in the checkout at some other repository or index.
const GIT_LOCATION = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
]);

/**
 * The environment a check runs in: the runner's, without Railyard's own settings (API tokens live
 * there), npm's per-script variables and git location overrides, plus what the check may want to
 * know about its run.
 */
export const checkEnv = (base: NodeJS.ProcessEnv, run: TriggerInput, check: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || name.startsWith('RAILYARD_') || name.startsWith('npm_') || GIT_LOCATION.has(name)) continue;
    env[name] = value;
  }
  return {
    ...env,
    CI: 'true',
    RAILYARD_CI: 'true',
    RAILYARD_TEST_RUN_ID: run.testRunId,
    RAILYARD_SHA: run.sha,
    RAILYARD_BRANCH: run.branch,
    RAILYARD_CHECK: check,
    RAILYARD_REPO: `${run.repo.host}/${run.repo.owner}/${run.repo.name}`,
  };
};

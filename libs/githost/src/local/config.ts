import * as path from 'node:path';

/** Where the local host's bare repositories live: RAILYARD_GIT_ROOT, else `<RAILYARD_DATA_DIR>/git` (data dir default `./data`). */
export const gitRootFromEnv = (env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string => {
  if (env.RAILYARD_GIT_ROOT) return path.resolve(cwd, env.RAILYARD_GIT_ROOT);
  return path.resolve(cwd, env.RAILYARD_DATA_DIR || 'data', 'git');
};

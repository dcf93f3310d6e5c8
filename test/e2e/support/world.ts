import path from 'node:path';
import { commitOnBranch, createRepoWithCommits, makeTempDir, openPr, removeTempDir } from '@railyard/testkit';
import { REPO } from './client';

export const TOKENS = {
  admin: 'admin-secret-0123456789abcdef',
  write: 'write-secret-0123456789abcdef',
  read: 'read-secret-0123456789abcdefgh',
};
export const TOKEN_ENV = `ops:${TOKENS.admin}:admin,ci:${TOKENS.write}:write,dashboard:${TOKENS.read}:read`;
/** A standalone API refuses to start without it (docs/security.md); every process of a world shares it. */
export const PAGE_TOKEN_SECRET = 'e2e-page-token-secret-0123456789';

type Repo = typeof REPO;

/**
 * A real bare repository on the local git host: main holds README.md and shared.txt. Main edits
 * shared.txt before any PR is opened, so PRs from the initial commit that edit it conflict, and a PR
 * opened later from main keeps the mergeability the host worked out when it was opened.
 */
const seedRepo = async (gitRoot: string, repo: Repo): Promise<string> => {
  const { sha: initial } = await createRepoWithCommits(gitRoot, repo, { files: { 'README.md': '# widgets\n', 'shared.txt': 'base\n' } });
  await commitOnBranch(gitRoot, repo, { branch: 'main', files: { 'shared.txt': 'changed on main\n' }, message: 'main edits shared' });
  return initial;
};

/**
 * A data dir with a real bare repository (REPO) on the local git host; PRs are opened from feature
 * branches with `openFeaturePr`.
 */
export const makeWorld = async () => {
  const dataDir = await makeTempDir('railyard-e2e-');
  const gitRoot = path.join(dataDir, 'git');
  return worldOf(dataDir, gitRoot, REPO, await seedRepo(gitRoot, REPO));
};

/**
 * Another repository, seeded as makeWorld seeds REPO, on the same local host and so served by the same
 * server: a queue of its own for a test that shares a server with other tests. Cleaning it up removes
 * the whole data dir, as the world's own cleanup does.
 */
export const addRepo = async (world: World, name: string): Promise<World> => {
  const repo = { ...REPO, name };
  return worldOf(world.dataDir, world.gitRoot, repo, await seedRepo(world.gitRoot, repo));
};

const worldOf = (dataDir: string, gitRoot: string, repo: Repo, initial: string) => {
  return {
    dataDir,
    gitRoot,
    /** The repository the helpers below (and support/engine-world.ts's) act on. */
    repo,
    // The merge engine would start testing every submitted PR; suites about the engine switch it on.
    env: {
      RAILYARD_DATA_DIR: dataDir,
      RAILYARD_API_TOKENS: TOKEN_ENV,
      RAILYARD_PAGE_TOKEN_SECRET: PAGE_TOKEN_SECRET,
      RAILYARD_ENGINE: 'off',
    },
    /** A PR touching only its own file: mergeable into main. */
    openFeaturePr: async (number: number, opts: { base?: string; title?: string } = {}) => {
      await commitOnBranch(gitRoot, repo, {
        branch: `feature-${number}`,
        files: { [`f${number}.txt`]: `${number}\n` },
        message: opts.title ?? `Feature ${number}`,
      });
      return openPr(gitRoot, { repo, number, head: `feature-${number}`, base: opts.base ?? 'main' });
    },
    /** A PR editing shared.txt from the initial commit while main edited it too: git says it conflicts. */
    openConflictingPr: async (number: number) => {
      await commitOnBranch(gitRoot, repo, {
        branch: `conflict-${number}`,
        from: initial,
        files: { 'shared.txt': `changed by PR ${number}\n` },
        message: `Conflict ${number}`,
      });
      return openPr(gitRoot, { repo, number, head: `conflict-${number}` });
    },
    createBranch: (branch: string) => commitOnBranch(gitRoot, repo, { branch, from: initial, files: { [`${branch}.txt`]: 'x\n' } }),
    cleanup: () => removeTempDir(dataDir),
  };
};
export type World = ReturnType<typeof worldOf>;

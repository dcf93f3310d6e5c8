import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { createRepoWithCommits, type FileChanges } from './git-repos';
import { makeTempDir, removeTempDir } from './temp-dir';

export interface RepoBedOptions {
  /** What main's first commit holds; the default is a README. */
  files?: FileChanges;
  /** The git root as a folder of the temporary directory (a data directory beside it); default: the directory itself. */
  gitSubdir?: string;
  /** A fresh repository for every test (the default), or one for the whole file. */
  per?: 'test' | 'file';
  prefix?: string;
}

/** A temporary directory holding one bare repository with one commit on main. */
export interface RepoBed {
  /** The temporary directory, removed after the test (or the file). */
  readonly dir: string;
  /** The git root: repositories live at <root>/<host>/<owner>/<name>.git. */
  readonly root: string;
  readonly gitDir: string;
  /** Main's first commit. */
  readonly base: string;
}

/**
 * Registers the hooks that create the repository before each test (or the file) and remove it after,
 * so a git test states only what it builds on top. Call it before the hooks that use it: jest runs
 * hooks in the order they are registered, and a bed at the file's top level outlives every describe.
 */
export const repoBed = (repo: RepoRef, options: RepoBedOptions = {}): RepoBed => {
  let made: RepoBed | undefined;
  const current = (): RepoBed => {
    if (!made) throw new Error('repoBed: the repository is created in a before hook; use it inside a test or hook');
    return made;
  };
  const create = async (): Promise<void> => {
    const dir = await makeTempDir(options.prefix);
    const root = options.gitSubdir ? path.join(dir, options.gitSubdir) : dir;
    const { gitDir, sha } = await createRepoWithCommits(root, repo, options.files ? { files: options.files } : undefined);
    made = { dir, root, gitDir, base: sha };
  };
  const remove = async (): Promise<void> => {
    if (made) await removeTempDir(made.dir);
    made = undefined;
  };
  if (options.per === 'file') {
    beforeAll(create);
    afterAll(remove);
  } else {
    beforeEach(create);
    afterEach(remove);
  }
  return {
    get dir() {
      return current().dir;
    },
    get root() {
      return current().root;
    },
    get gitDir() {
      return current().gitDir;
    },
    get base() {
      return current().base;
    },
  };
};

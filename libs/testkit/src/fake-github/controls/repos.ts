import { isValidRepoSegment } from '@railyard/githost';
import { commitOnBranch, gitDirOf } from '../../git-repos';
import type { FakeCore } from '../core';
import { compareAndSwapRef, deleteRef, initBareRepository, readRef, shareObjects } from '../git';
import { syncBranches } from '../lifecycle';
import type { ClassicProtection, CollaboratorRole, FakeRepo, FakeUser } from '../model';

/** Test controls for repositories and their branches: what people do on GitHub with git and the web UI. */

export type FileChanges = Record<string, string | null>;

export interface CommitInput {
  /** `owner/name`. */
  repo: string;
  branch: string;
  files: FileChanges;
  message?: string;
  /** Where a new branch starts: a branch or commit id; default the repository's default branch. */
  from?: string;
  /** Who pushes (and authors) it; default the repository owner. */
  user?: string;
}

export const repoNamed = (core: FakeCore, fullName: string): FakeRepo => {
  const [owner = '', name = ''] = fullName.split('/');
  const repo = core.state.repoByName(owner, name);
  if (!repo) throw new Error(`no repository ${fullName} on the fake GitHub`);
  return repo;
};

/** The host segment of the fake's repository directories (`<root>/github.com/<owner>/<name>.git`). */
const FAKE_HOST = 'github.com';

/** A new empty bare repository and its record, with no rules, collaborators or branches yet. */
const addRepo = async (
  core: FakeCore,
  spec: Pick<FakeRepo, 'owner' | 'name' | 'defaultBranch' | 'private' | 'parentId'>,
): Promise<FakeRepo> => {
  const gitDir = gitDirOf(core.root, { host: FAKE_HOST, owner: spec.owner.login, name: spec.name });
  await initBareRepository(gitDir, spec.defaultBranch);
  const repo: FakeRepo = {
    ...spec,
    id: core.state.nextId(),
    gitDir,
    createdAt: core.state.iso(),
    collaborators: new Map(),
    protection: new Map(),
    rulesets: [],
    bypassAppIds: new Set(),
    knownBranches: new Map(),
  };
  core.state.repos.set(repo.id, repo);
  return repo;
};

export const createRepo = async (
  core: FakeCore,
  input: { repo: string; defaultBranch?: string; files?: FileChanges; private?: boolean; ownerType?: FakeUser['type'] },
): Promise<FakeRepo> => {
  const [ownerLogin = '', name = ''] = input.repo.split('/');
  if (!isValidRepoSegment(ownerLogin) || !isValidRepoSegment(name)) throw new Error(`invalid repository name ${input.repo}`);
  if (core.state.repoByName(ownerLogin, name)) throw new Error(`repository ${input.repo} exists`);
  const owner = core.state.user(ownerLogin, input.ownerType ?? 'User');
  const defaultBranch = input.defaultBranch ?? 'main';
  const repo = await addRepo(core, { owner, name, defaultBranch, private: input.private ?? false, parentId: null });
  await commitFiles(core, {
    repo: input.repo,
    branch: defaultBranch,
    files: input.files ?? { 'README.md': `# ${name}\n` },
    message: 'Initial commit',
  });
  return repo;
};

/** A fork owned by `owner`; the two repositories share objects, as one fork network does on GitHub. */
export const forkRepo = async (core: FakeCore, source: string, ownerLogin: string): Promise<FakeRepo> => {
  const parent = repoNamed(core, source);
  const owner = core.state.user(ownerLogin);
  const fork = await addRepo(core, {
    owner,
    name: parent.name,
    defaultBranch: parent.defaultBranch,
    private: parent.private,
    parentId: parent.id,
  });
  await shareObjects(fork.gitDir, parent.gitDir);
  await shareObjects(parent.gitDir, fork.gitDir);
  for (const [branch, sha] of parent.knownBranches) await compareAndSwapRef(fork.gitDir, `refs/heads/${branch}`, sha, null);
  await syncBranches(core, fork, owner);
  return fork;
};

/** Commits `files` on top of `branch` (creating it from `from`) and pushes it: every reaction to a push follows. */
export const commitFiles = async (core: FakeCore, input: CommitInput): Promise<string> => {
  const repo = repoNamed(core, input.repo);
  const user = core.state.user(input.user ?? repo.owner.login);
  return core.withRepoLock(repo.id, async () => {
    const sha = await commitOnBranch(
      core.root,
      { host: FAKE_HOST, owner: repo.owner.login, name: repo.name },
      {
        branch: input.branch,
        from: input.from ?? repo.defaultBranch,
        files: input.files,
        message: input.message ?? `Change ${Object.keys(input.files).join(', ')}`,
        author: { name: user.login, email: user.email },
      },
    );
    await syncBranches(core, repo, user);
    return sha;
  });
};

/** Moves (or creates) a branch to an existing commit, as a `git push` (with --force when `force`) would. */
export const setBranch = async (core: FakeCore, fullName: string, branch: string, sha: string, user?: string): Promise<void> => {
  const repo = repoNamed(core, fullName);
  await core.withRepoLock(repo.id, async () => {
    const ref = `refs/heads/${branch}`;
    if (!(await compareAndSwapRef(repo.gitDir, ref, sha, await readRef(repo.gitDir, ref)))) throw new Error(`${branch} moved`);
    await syncBranches(core, repo, core.state.user(user ?? repo.owner.login));
  });
};

export const deleteBranch = async (core: FakeCore, fullName: string, branch: string, user?: string): Promise<void> => {
  const repo = repoNamed(core, fullName);
  await core.withRepoLock(repo.id, async () => {
    const ref = `refs/heads/${branch}`;
    const current = await readRef(repo.gitDir, ref);
    if (current !== null) await deleteRef(repo.gitDir, ref, current);
    await syncBranches(core, repo, core.state.user(user ?? repo.owner.login));
  });
};

/** Tells the fake that something outside it (a `git push` to the bare repository) may have moved branches. */
export const refsChanged = async (core: FakeCore, fullName: string, user?: string): Promise<void> => {
  const repo = repoNamed(core, fullName);
  await core.withRepoLock(repo.id, () => syncBranches(core, repo, core.state.user(user ?? repo.owner.login)));
};

export const setCollaborator = (core: FakeCore, fullName: string, login: string, role: CollaboratorRole | null): void => {
  const repo = repoNamed(core, fullName);
  const user = core.state.user(login);
  if (role === null) repo.collaborators.delete(user.login);
  else repo.collaborators.set(user.login, role);
};

export const protectBranch = (core: FakeCore, fullName: string, branch: string, protection: ClassicProtection | null): void => {
  const repo = repoNamed(core, fullName);
  if (protection === null) repo.protection.delete(branch);
  else repo.protection.set(branch, protection);
};

export const addRuleset = (
  core: FakeCore,
  fullName: string,
  ruleset: { name?: string; branches: string[]; requiredChecks: { context: string; integrationId?: number }[]; strict?: boolean },
): number => {
  const repo = repoNamed(core, fullName);
  const id = core.state.nextId();
  repo.rulesets.push({
    id,
    name: ruleset.name ?? `ruleset ${id}`,
    branches: ruleset.branches,
    requiredChecks: ruleset.requiredChecks,
    strict: ruleset.strict ?? false,
  });
  return id;
};

/** Lets an App move the repository's protected branches without the required checks (a ruleset bypass actor). */
export const allowBypass = (core: FakeCore, fullName: string, appId: number, allowed = true): void => {
  const repo = repoNamed(core, fullName);
  if (allowed) repo.bypassAppIds.add(appId);
  else repo.bypassAppIds.delete(appId);
};

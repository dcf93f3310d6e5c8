import type { FakeCore } from '../core';
import type { FakeInstallation, FakeRepo, PermissionLevel } from '../model';
import type { RepoScope } from '../operations';
import { installationPayload, installationRepositoriesPayload } from '../payloads';
import { repoNamed } from './repos';

/** Test controls for installing the App: what an account owner does on the App's settings page. */

/** The permissions docs/github.md asks the App for. */
export const DEFAULT_PERMISSIONS: Partial<Record<RepoScope, PermissionLevel>> = {
  contents: 'write',
  pull_requests: 'write',
  checks: 'write',
  statuses: 'read',
  issues: 'write',
  metadata: 'read',
  actions: 'read',
};

const HOURLY_BUDGET = 5000;

// Installation events reach the App whatever it subscribed to.
const emitInstallation = (core: FakeCore, action: string, inst: FakeInstallation) => {
  const sender = inst.account;
  core.webhooks.emit('installation', action, installationPayload(action, inst, core.state.installationRepos(inst), sender, core.view));
};

export const install = (
  core: FakeCore,
  input: { account: string; repos?: string[]; permissions?: Partial<Record<RepoScope, PermissionLevel>>; budget?: number },
): FakeInstallation => {
  const account = core.state.user(input.account);
  const inst: FakeInstallation = {
    id: core.state.nextId(),
    appId: core.app.id,
    account,
    repositorySelection: input.repos === undefined ? 'all' : 'selected',
    repoIds: new Set((input.repos ?? []).map((name) => repoNamed(core, name).id)),
    permissions: input.permissions ?? DEFAULT_PERMISSIONS,
    suspendedAt: null,
    createdAt: core.state.iso(),
    budget: { limit: input.budget ?? HOURLY_BUDGET, used: 0, resetAt: core.state.now().getTime() + 60 * 60 * 1000 },
  };
  core.state.installations.set(inst.id, inst);
  emitInstallation(core, 'created', inst);
  return inst;
};

const installationNamed = (core: FakeCore, id: number): FakeInstallation => {
  const inst = core.state.installations.get(id);
  if (!inst) throw new Error(`no installation ${id}`);
  return inst;
};

export const uninstall = (core: FakeCore, id: number): void => {
  const inst = installationNamed(core, id);
  emitInstallation(core, 'deleted', inst);
  core.state.installations.delete(id);
  for (const [token, record] of core.state.tokens) if (record.installationId === id) core.state.tokens.delete(token);
};

export const suspend = (core: FakeCore, id: number, suspended: boolean): void => {
  const inst = installationNamed(core, id);
  inst.suspendedAt = suspended ? core.state.iso() : null;
  emitInstallation(core, suspended ? 'suspend' : 'unsuspend', inst);
};

export const changeRepos = (core: FakeCore, id: number, action: 'added' | 'removed', names: string[]): void => {
  const inst = installationNamed(core, id);
  const changed: FakeRepo[] = names.map((name) => repoNamed(core, name));
  if (inst.repositorySelection === 'all') {
    inst.repositorySelection = 'selected';
    inst.repoIds = new Set(core.state.installationRepos({ ...inst, repositorySelection: 'all' }).map((r) => r.id));
  }
  for (const repo of changed) {
    if (action === 'added') inst.repoIds.add(repo.id);
    else inst.repoIds.delete(repo.id);
  }
  core.webhooks.emit('installation_repositories', action, installationRepositoriesPayload(action, inst, changed, inst.account, core.view));
};

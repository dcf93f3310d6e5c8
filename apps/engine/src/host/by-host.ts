import type { RepoRef } from '@railyard/domain';
import type { CiPort, CiTrigger, CodeHost, HostListener } from '@railyard/queue-driver';

/**
 * Which code host and CI serve a repository, by the host name its queue id carries: repositories of
 * the configured GitHub (github.com or a GHES host) go to the GitHub adapter, every other to the local
 * git host, so both work side by side in one engine (docs/githost.md).
 */
export interface HostRoute {
  host: CodeHost;
  ci: CiPort;
}

const pick = (routes: ReadonlyMap<string, HostRoute>, fallback: HostRoute, repo: RepoRef): HostRoute =>
  routes.get(repo.host.toLowerCase()) ?? fallback;

/** A CodeHost that hands each call to the host of the repository it names. */
export const codeHostByRepo = (fallback: HostRoute, routes: ReadonlyMap<string, HostRoute>): CodeHost => {
  const h = (repo: RepoRef): CodeHost => pick(routes, fallback, repo).host;
  return {
    pullRequest: (repo, number) => h(repo).pullRequest(repo, number),
    mergeability: (repo, number, headSha) => h(repo).mergeability(repo, number, headSha),
    branchHead: (repo, branch) => h(repo).branchHead(repo, branch),
    treeOf: (repo, sha) => h(repo).treeOf(repo, sha),
    isAncestor: (repo, a, d) => h(repo).isAncestor(repo, a, d),
    statuses: (repo, sha) => h(repo).statuses(repo, sha),
    buildTestBranch: (repo, request) => h(repo).buildTestBranch(repo, request),
    listTestBranches: (repo) => h(repo).listTestBranches(repo),
    deleteBranch: (repo, branch, expectedSha) => h(repo).deleteBranch(repo, branch, expectedSha),
    carryOnto: (repo, request) => h(repo).carryOnto(repo, request),
    directMergeCommit: (repo, request) => h(repo).directMergeCommit(repo, request),
    land: (repo, request) => h(repo).land(repo, request),
    markMerged: (repo, number) => h(repo).markMerged(repo, number),
    watch: (repo, branches, listener: HostListener) => h(repo).watch(repo, branches, listener),
    close: async () => {
      await Promise.all([fallback.host, ...[...routes.values()].map((r) => r.host)].map((x) => x.close()));
    },
  };
};

/** A CiPort that hands each call to the CI of the repository it names; run ids are unique, so the rest ask every CI. */
export const ciByRepo = (fallback: HostRoute, routes: ReadonlyMap<string, HostRoute>): CiPort => {
  const all = [fallback.ci, ...[...routes.values()].map((r) => r.ci)];
  const c = (repo: RepoRef): CiPort => pick(routes, fallback, repo).ci;
  return {
    trigger: (req: CiTrigger) => c(req.repo).trigger(req),
    cancel: async (testRunId) => {
      await Promise.all(all.map((ci) => ci.cancel(testRunId)));
    },
    isRunning: (testRunId) => all.some((ci) => ci.isRunning(testRunId)),
    reportsPending: (testRunId) => all.some((ci) => ci.reportsPending?.(testRunId) ?? false),
    rerunsSameCommit: (repo) => c(repo).rerunsSameCommit?.(repo) ?? true,
    rerunnableChecks: async (repo, sha, configSha) => c(repo).rerunnableChecks?.(repo, sha, configSha),
    configChanges: async (repo, from, to) => (await c(repo).configChanges?.(repo, from, to)) ?? [],
    statuses: (repo, sha) => c(repo).statuses(repo, sha),
    onChange: (listener) => {
      const offs = all.map((ci) => ci.onChange(listener));
      return () => offs.forEach((off) => off());
    },
    resolveRequiredStatuses: (input) => c(input.repo).resolveRequiredStatuses(input),
    close: async () => {
      await Promise.all(all.map((ci) => ci.close()));
    },
  };
};

import { currentRun, planOrder, type HostFacts, type PullFacts, type QueueState, type ReportedStatus } from '@railyard/domain';
import { pullHeadRefOf, readPullFile, RefReader, repoDirOf, type GitHost } from '@railyard/githost';
import type { CiPort } from './ci/port';
import { isAncestor, listTestBranches, treeOf } from './git/commits';
import type { TargetOverlapsCache } from './targets';

/**
 * Reads what the planner needs from the local host and CI. PR files and refs are read from disk on
 * every round (cheap); mergeability, which costs a merge, is asked only for PRs waiting to be ready,
 * and the list of test branches only when the caller sweeps.
 */
export class FactsReader {
  private readonly refs = new RefReader(64);
  private readonly trees = new Map<string, string>();

  constructor(
    private readonly gitRoot: string,
    private readonly gitHost: GitHost,
    private readonly ci: CiPort,
    private readonly overlaps?: TargetOverlapsCache,
  ) {}

  /** The target branch's head and tree now, or null when it (or the repository) does not exist. */
  async target(s: QueueState): Promise<HostFacts['target']> {
    const gitDir = repoDirOf(this.gitRoot, s.repo);
    const sha = gitDir === null ? null : await this.refs.read(gitDir, `refs/heads/${s.branch}`);
    return gitDir === null || sha === null ? null : { sha, tree: await this.treeOf(gitDir, sha) };
  }

  async read(s: QueueState, opts: { sweep: boolean }): Promise<HostFacts> {
    const gitDir = repoDirOf(this.gitRoot, s.repo);
    if (gitDir === null) return { target: null, pulls: new Map(), statuses: new Map(), testBranches: [] };
    const target = await this.target(s);

    const pulls = new Map<number, PullFacts>();
    const active = [...s.entries.values()].filter((e) => e.state !== 'merged' && e.state !== 'failed' && e.state !== 'cancelled');
    await Promise.all(
      active.map(async (e) => {
        const [file, headSha] = await Promise.all([
          readPullFile(gitDir, e.prNumber).catch(() => null),
          this.refs.read(gitDir, pullHeadRefOf(e.prNumber)),
        ]);
        if (file === null || headSha === null) return;
        const facts: PullFacts = { headSha, baseBranch: file.baseBranch, state: file.state };
        if (e.state === 'not_ready' && file.state === 'open' && headSha === e.headSha) {
          const snapshot = await this.gitHost.getPullRequest(s.repo, e.prNumber);
          if (snapshot) facts.mergeability = snapshot.mergeability;
        }
        pulls.set(e.prNumber, facts);
      }),
    );

    const statuses = new Map<string, ReportedStatus[]>();
    for (const run of s.runs.values())
      if (run.status === 'testing') statuses.set(run.testBranchSha, await this.ci.statuses(s.repo, run.testBranchSha));

    const facts: HostFacts = { target, pulls, statuses, testBranches: opts.sweep ? await listTestBranches(gitDir) : [] };
    const overlaps = await this.overlaps?.forQueue(s);
    if (overlaps) facts.overlaps = overlaps;
    const order = planOrder(s);
    const first = order[0];
    const nothingInFlight = order.every((e) => e.flightSeq === undefined && currentRun(s, e) === undefined);
    if (s.settings.directMergeMode === 'always' && target && first?.state === 'pending' && nothingInFlight) {
      facts.directMerge = {
        prNumber: first.prNumber,
        headSha: first.headSha,
        upToDate: await isAncestor(gitDir, target.sha, first.headSha).catch(() => false),
        headTree: await this.treeOf(gitDir, first.headSha).catch(() => ''),
      };
    }
    return facts;
  }

  private async treeOf(gitDir: string, sha: string): Promise<string> {
    const key = `${gitDir}\0${sha}`;
    const known = this.trees.get(key);
    if (known !== undefined) return known;
    const tree = await treeOf(gitDir, sha);
    if (this.trees.size > 10_000) this.trees.clear();
    this.trees.set(key, tree);
    return tree;
  }
}

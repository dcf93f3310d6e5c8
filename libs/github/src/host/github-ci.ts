import { type RepoRef, type ReportedStatus, type RequiredStatusesSource, repoSlug } from '@railyard/domain';
import {
  parseRailyardConfig,
  parseTrunkConfig,
  RAILYARD_CONFIG_FILE,
  requiredStatusesFrom,
  TRUNK_CONFIG_FILE,
  type RepoConfigAtCommit,
} from '@railyard/ci';
import { LRUCache } from 'lru-cache';
import type { GithubCodeHost } from './code-host';
import type { RepoApi } from './repo-api';
import { checkRunState } from './statuses';

type RequiredAnswer =
  | { statuses: string[]; source: RequiredStatusesSource }
  | { error: 'START_TEST_RUN_NO_REQUIRED_STATUSES' | 'START_TEST_RUN_CONFIG_PARSING_FAILURE'; message: string };

export interface GithubCiOptions {
  host: GithubCodeHost;
  /** How long a branch's rules (rulesets, classic protection) are trusted before they are read again. */
  branchRulesTtlMs?: number;
}

/**
 * CI on GitHub as the engine's CI port sees it (libs/queue-driver/src/ci/port.ts): the repository's own CI
 * (GitHub Actions or any other) starts by itself on a push to `railyard-merge/**` and reports commit
 * statuses or check runs, so there is nothing to trigger or cancel, and every report arrives as a
 * webhook through the code host. What Railyard works out here is which reports a run needs: the
 * queue's list, else `.railyard.yml`, else `.trunk/trunk.yaml` at the run's base, always with the
 * branch's rules on GitHub (rulesets and classic protection).
 */
export class GithubCi {
  private readonly host: GithubCodeHost;
  private readonly rules: LRUCache<string, string[]>;
  /** Runs this process was asked to test: after a restart the engine asks again, which costs nothing here. */
  private readonly runs = new Set<string>();

  constructor(opts: GithubCiOptions) {
    this.host = opts.host;
    this.rules = new LRUCache({ max: 1000, ttl: opts.branchRulesTtlMs ?? 60_000 });
  }

  /**
   * The repository's CI starts by itself on the push of the test branch: a run is only noted. A
   * re-run of a failure on the same commit (flakeRetries) re-requests the check suite of each failed
   * check run named, unless this attempt did already: the commit then has more runs of that check
   * than attempts before it (after a restart the engine triggers its running runs again).
   */
  async trigger(req: { repo: RepoRef; sha: string; testRunId: string; rerun?: { contexts: string[]; attempt: number } }): Promise<void> {
    this.runs.add(req.testRunId);
    if (!req.rerun) return;
    const api = await this.host.repoApi(req.repo);
    const suites = new Set<number>();
    for (const context of new Set(req.rerun.contexts)) {
      const runs = await api.checkRunsNamed(req.sha, context);
      const latest = runs.reduce<(typeof runs)[number] | undefined>((a, b) => (a === undefined || b.id > a.id ? b : a), undefined);
      if (!latest || latest.suiteId === null || runs.length > req.rerun.attempt) continue;
      const state = checkRunState(latest.status, latest.conclusion);
      if (state === 'failure' || state === 'error') suites.add(latest.suiteId);
    }
    for (const suite of suites) await api.rerequestSuite(suite);
    if (suites.size > 0) this.host.forgetCheckRuns(req.repo, req.sha);
  }

  /** A deleted test branch ends its CI's interest in it; GitHub has no cancel that works across CI systems. */
  async cancel(testRunId: string): Promise<void> {
    this.runs.delete(testRunId);
  }

  isRunning(testRunId: string): boolean {
    return this.runs.has(testRunId);
  }

  /** A failure is re-run on the same commit by re-requesting its check suite (trigger, docs/github.md "Flake re-runs"). */
  rerunsSameCommit(): boolean {
    return true;
  }

  /**
   * The checks GitHub can run again at `sha`: those reported as check runs (their suites can be
   * re-requested). A commit status cannot be: a failure reported only as a status is never re-run.
   */
  async rerunnableChecks(repo: RepoRef, sha: string): Promise<ReadonlySet<string>> {
    return new Set((await this.host.checkRuns(repo, sha)).map((run) => run.name));
  }

  statuses(repo: RepoRef, sha: string): Promise<ReportedStatus[]> {
    return this.host.statuses(repo, sha);
  }

  /** Reports arrive as the code host's `status` events (webhooks); nothing more to follow here. */
  onChange(): () => void {
    return () => undefined;
  }

  /**
   * The queue's list, else `merge.required_statuses` of `.railyard.yml`, else of `.trunk/trunk.yaml`,
   * read at `configSha` (the target-branch commit the run is built on, never the tested tree), joined
   * with what the branch's rules require. GitHub's rulesets and classic protection are the repository
   * owner's gate: the queue and the files may add to them, never lower them (docs/decisions.md D200).
   */
  async resolveRequiredStatuses(input: {
    queueList: readonly string[];
    repo: RepoRef;
    configSha: string;
    branch?: string;
  }): Promise<RequiredAnswer> {
    const api = await this.host.repoApi(input.repo);
    const listed =
      input.queueList.length > 0
        ? requiredStatusesFrom(input.queueList, { railyard: null, trunk: null })
        : // A commit this adapter built without touching the files holds its base's: read there, usually from memory.
          requiredStatusesFrom([], await this.configAt(api, this.host.configCommitOf(input.repo, input.configSha)));
    if ('error' in listed && listed.error === 'START_TEST_RUN_CONFIG_PARSING_FAILURE') return listed;
    const rules = input.branch === undefined ? [] : await this.branchRules(api, input.branch);
    // Nobody here runs the `ci:` checks of .railyard.yml: GitHub's own CI reports every context.
    if (!('error' in listed)) return { statuses: [...new Set([...listed.statuses, ...rules])], source: listed.source };
    if (rules.length > 0) return { statuses: rules, source: 'repo_provider_branch_protection' };
    return {
      error: 'START_TEST_RUN_NO_REQUIRED_STATUSES',
      message: `No required statuses: the queue sets none, neither .railyard.yml nor .trunk/trunk.yaml has merge.required_statuses, and no ruleset or branch protection of ${input.branch ?? 'the branch'} requires a check`,
    };
  }

  /**
   * The gating configuration files whose blob differs between two commits (CiPort.configChanges).
   * A commit the adapter built without touching them (its merges changed no such path) is known to
   * hold its base's files, so a run of a PR that leaves them alone reads no tree.
   */
  async configChanges(repo: RepoRef, from: string, to: string): Promise<string[]> {
    if (this.host.configCommitOf(repo, to) === this.host.configCommitOf(repo, from)) return [];
    const api = await this.host.repoApi(repo);
    const [a, b] = await Promise.all([this.configBlobs(api, from), this.configBlobs(api, to)]);
    return [RAILYARD_CONFIG_FILE, TRUNK_CONFIG_FILE].filter((file) => a.get(file) !== b.get(file));
  }

  private async configBlobs(api: RepoApi, sha: string): Promise<Map<string, string>> {
    const root = await api.tree((await api.commit(sha)).tree);
    const out = new Map<string, string>();
    const railyard = root.find((e) => e.path === RAILYARD_CONFIG_FILE);
    if (railyard) out.set(RAILYARD_CONFIG_FILE, `${railyard.type}:${railyard.sha}`);
    // A `.trunk` that is not a directory stands for the file it replaces.
    const trunkDir = root.find((e) => e.path === '.trunk');
    const trunk = trunkDir?.type === 'tree' ? (await api.tree(trunkDir.sha)).find((e) => e.path === 'trunk.yaml') : trunkDir;
    if (trunk) out.set(TRUNK_CONFIG_FILE, `${trunk.type}:${trunk.sha}`);
    return out;
  }

  /**
   * The configuration files at `sha`, found in its tree (one request, usually answered from memory:
   * the target's commits are read again and again) and read only when their blob is new to this process.
   */
  private async configAt(api: RepoApi, sha: string): Promise<RepoConfigAtCommit> {
    const root = await api.tree((await api.commit(sha)).tree);
    const railyardBlob = root.find((e) => e.path === RAILYARD_CONFIG_FILE && e.type === 'blob');
    const railyardText = railyardBlob ? await api.blobText(railyardBlob.sha, RAILYARD_CONFIG_FILE, sha) : null;
    const railyard = railyardText === null ? null : parseRailyardConfig(railyardText);
    // .trunk/trunk.yaml is looked for only when .railyard.yml does not settle it.
    const settled = railyard !== null && (!railyard.ok || railyard.config.requiredStatuses !== undefined);
    const trunkDir = settled ? undefined : root.find((e) => e.path === '.trunk' && e.type === 'tree');
    const trunkBlob = trunkDir ? (await api.tree(trunkDir.sha)).find((e) => e.path === 'trunk.yaml' && e.type === 'blob') : undefined;
    const trunkText = trunkBlob ? await api.blobText(trunkBlob.sha, TRUNK_CONFIG_FILE, sha) : null;
    return { railyard, trunk: trunkText === null ? null : parseTrunkConfig(trunkText) };
  }

  async close(): Promise<void> {
    this.rules.clear();
    this.runs.clear();
  }

  private async branchRules(api: RepoApi, branch: string): Promise<string[]> {
    const key = `${repoSlug(api.repo)}\0${branch}`;
    const known = this.rules.get(key);
    if (known) return known;
    const [rulesets, classic] = await Promise.all([api.rulesetChecks(branch), api.protectionChecks(branch)]);
    const checks = [...new Set([...rulesets, ...classic])];
    this.rules.set(key, checks);
    return checks;
  }
}

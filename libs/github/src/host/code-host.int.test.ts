import type { MergeMethod, RepoRef } from '@railyard/domain';
import { isGitHostError } from '@railyard/githost';
import { GITHUB_HOST, startGithubBed, type GithubBed } from '../../../../test/contract/support/github-bed';
import type { FaultRequest } from '@railyard/testkit';
import type { GithubHostEvent } from './host-events';

// What the GitHub adapter does beyond the CodeHost contract: GitHub's own ways (drafts, forks, late
// mergeability, merged flags) and its failures (lost answers, races, rate limits), on the fake GitHub.

jest.setTimeout(60_000);

const FULL = 'acme/widgets';
const REPO: RepoRef = { host: GITHUB_HOST, owner: 'acme', name: 'widgets' };

const until = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('GitHub code host on the fake GitHub', () => {
  let bed: GithubBed;
  /** The requests of `operation` the fake received from now on (a fault rule that never fires, as a spy). */
  const spy = (operation: 'git/update-ref' | 'git/delete-ref'): FaultRequest[] => {
    const seen: FaultRequest[] = [];
    bed.fake.faults.inject({
      operation,
      kind: 'not-fast-forward',
      times: Infinity,
      when: (r) => {
        seen.push(r);
        return false;
      },
    });
    return seen;
  };
  const onMain = (seen: FaultRequest[]) => seen.filter((r) => r.params.ref === 'heads/main');

  const openPr = async (branch: string, files: Record<string, string>, extra: { draft?: boolean } = {}) => {
    await bed.fake.commit({ repo: FULL, branch, from: 'main', files });
    return bed.fake.openPullRequest({ repo: FULL, head: branch, base: 'main', title: branch, ...extra });
  };
  const base = async () => (await bed.host.branchHead(REPO, 'main')) as { sha: string; tree: string };
  /** The test branch of one PR on `baseSha`; a conflict fails the test. */
  const buildOne = async (pr: { number: number; headSha: string }, baseSha: string, method: MergeMethod, testRunId: string) => {
    const built = await bed.host.buildTestBranch(REPO, { baseSha, stack: [pr], method, testRunId, prNumber: pr.number });
    if (!built.ok) throw new Error('conflict');
    return built;
  };

  afterEach(async () => {
    const violations = [...bed.fake.violations];
    await bed.close();
    expect(violations).toEqual([]);
  });

  describe('with the default App', () => {
    beforeEach(async () => {
      bed = await startGithubBed();
    });

    it('when GitHub applied a landing but its answer was lost (a 5xx), then the adapter reads the branch back and says landed, sending the PATCH once', async () => {
      const pr = await openPr('one', { 'one.txt': '1\n' });
      const b = await base();
      const built = await buildOne({ number: pr.number, headSha: pr.headSha }, b.sha, 'squash', 'r1');
      const patches = spy('git/update-ref');
      bed.fake.faults.inject({ operation: 'git/update-ref', kind: 'server-error', status: 502, afterApply: true });
      expect(await bed.host.land(REPO, { branch: 'main', sha: built.sha, expected: b.sha })).toEqual({ landed: true });
      expect(await bed.fake.branchSha(FULL, 'main')).toBe(built.sha);
      expect(onMain(patches)).toHaveLength(1);
    });

    it('when a 5xx comes before GitHub applied the landing, then the adapter throws and nothing moved; it never repeats the PATCH itself', async () => {
      const pr = await openPr('one', { 'one.txt': '1\n' });
      const b = await base();
      const built = await buildOne({ number: pr.number, headSha: pr.headSha }, b.sha, 'squash', 'r2');
      const patches = spy('git/update-ref');
      bed.fake.faults.inject({ operation: 'git/update-ref', kind: 'server-error', status: 503 });
      await expect(bed.host.land(REPO, { branch: 'main', sha: built.sha, expected: b.sha })).rejects.toMatchObject({ status: 503 });
      expect(await bed.fake.branchSha(FULL, 'main')).toBe(b.sha);
      expect(onMain(patches)).toHaveLength(1);
    });

    it('when GitHub answers 422 not a fast forward because the base moved, then the landing says where the base is and nothing is forced', async () => {
      const pr = await openPr('one', { 'one.txt': '1\n' });
      const b = await base();
      const built = await buildOne({ number: pr.number, headSha: pr.headSha }, b.sha, 'squash', 'r3');
      const pushed = await bed.fake.commit({ repo: FULL, branch: 'main', files: { 'hot.txt': 'fix\n' } });
      const patches = spy('git/update-ref');
      expect(await bed.host.land(REPO, { branch: 'main', sha: built.sha, expected: b.sha })).toEqual({ landed: false, actual: pushed });
      expect(onMain(patches).map((r) => (r.body as { force?: boolean }).force)).toEqual([false]);
      expect(await bed.fake.branchSha(FULL, 'main')).toBe(pushed);
    });

    it('when GitHub refuses a landing as not a fast forward while the base stayed put, then the adapter fails the attempt as a moved ref (the engine backs off and re-reads)', async () => {
      const pr = await openPr('one', { 'one.txt': '1\n' });
      const b = await base();
      const built = await buildOne({ number: pr.number, headSha: pr.headSha }, b.sha, 'squash', 'r4');
      bed.fake.faults.inject({ operation: 'git/update-ref', kind: 'not-fast-forward' });
      const err: unknown = await bed.host.land(REPO, { branch: 'main', sha: built.sha, expected: b.sha }).catch((e: unknown) => e);
      expect(isGitHostError(err, 'REF_MOVED')).toBe(true);
      expect(await bed.fake.branchSha(FULL, 'main')).toBe(b.sha);
    });

    it('when writes meet a secondary rate limit, then the build waits it out and succeeds', async () => {
      const pr = await openPr('one', { 'one.txt': '1\n' });
      const b = await base();
      const limit = bed.fake.faults.inject({ operation: 'repos/merge', kind: 'secondary-rate-limit', retryAfterSeconds: 1, times: 2 });
      await buildOne(pr, b.sha, 'merge_commit', 'r5');
      expect(limit.hits).toBe(2);
    });

    it('when a PR is read again and nothing changed, then GitHub answers 304 (no budget spent) and the last read holds; after a push the new head is read', async () => {
      const pr = await openPr('cond', { 'c.txt': 'c\n' });
      // Until GitHub has worked out mergeability its answer changes: read past that first.
      await until('mergeable', async () => ((await bed.host.snapshot(REPO, pr.number))?.mergeability === 'mergeable' ? true : undefined));
      const first = await bed.host.pullRequest(REPO, pr.number);
      const notModified = () =>
        bed.fake.requests.count((r) => r.route === 'GET /repos/{owner}/{repo}/pulls/{pull_number}' && r.status === 304);
      const before = notModified();
      expect(await bed.host.pullRequest(REPO, pr.number)).toEqual(first);
      expect(notModified()).toBe(before + 1);
      const pushed = await bed.fake.commit({ repo: FULL, branch: 'cond', files: { 'c.txt': 'c2\n' } });
      expect(await bed.host.pullRequest(REPO, pr.number)).toMatchObject({ headSha: pushed });
      expect(notModified()).toBe(before + 1);
    });

    it('when a PR is a draft, then it is not ready (unspecified) until it is marked ready for review', async () => {
      const pr = await openPr('draft', { 'd.txt': 'd\n' }, { draft: true });
      expect(await bed.host.mergeability(REPO, pr.number, pr.headSha)).toBe('unspecified');
      await bed.fake.setDraft(FULL, pr.number, false);
      await until('mergeable', async () => {
        const m = await bed.host.mergeability(REPO, pr.number, pr.headSha);
        return m === 'mergeable' ? m : undefined;
      });
    });

    it('when a PR comes from a fork, then its head is read through refs/pull/N/head and its test branch holds it', async () => {
      await bed.fake.forkRepo(FULL, 'alice');
      const sha = await bed.fake.commit({
        repo: 'alice/widgets',
        branch: 'feature',
        files: { 'fork.txt': 'from a fork\n' },
        user: 'alice',
      });
      const pr = await bed.fake.openPullRequest({ repo: FULL, head: 'feature', headRepo: 'alice/widgets', base: 'main', user: 'alice' });
      const read = await bed.host.pullRequest(REPO, pr.number);
      expect(read).toMatchObject({ headSha: sha, baseBranch: 'main', state: 'open', author: 'alice' });
      const b = await base();
      const built = await buildOne({ number: pr.number, headSha: sha }, b.sha, 'squash', 'fork');
      expect(await bed.fileAt(FULL, built.sha, 'fork.txt')).toBe('from a fork\n');
    });

    it('when a squashed change landed, then the PR is closed with one comment linking the landed commit, and reads merged', async () => {
      const pr = await openPr('one', { 'one.txt': '1\n' });
      const b = await base();
      const built = await buildOne({ number: pr.number, headSha: pr.headSha }, b.sha, 'squash', 'sq');
      expect(await bed.host.land(REPO, { branch: 'main', sha: built.sha, expected: b.sha })).toEqual({ landed: true });
      await bed.host.markMerged(REPO, pr.number);
      await bed.host.markMerged(REPO, pr.number);
      expect(bed.fake.pullRequest(FULL, pr.number).state).toBe('closed');
      const comments = bed.fake.comments(FULL, pr.number);
      expect(comments).toHaveLength(1);
      expect(comments[0]?.body).toContain(built.sha);
      expect(await bed.host.pullRequest(REPO, pr.number)).toMatchObject({ state: 'merged' });
    });

    it('when a merge commit landed, then GitHub flags the PR merged by itself and Railyard neither closes nor comments', async () => {
      const pr = await openPr('one', { 'one.txt': '1\n' });
      const b = await base();
      const built = await buildOne({ number: pr.number, headSha: pr.headSha }, b.sha, 'merge_commit', 'mc');
      expect(await bed.host.land(REPO, { branch: 'main', sha: built.sha, expected: b.sha })).toEqual({ landed: true });
      await bed.host.markMerged(REPO, pr.number);
      await until('merged', async () => ((await bed.host.pullRequest(REPO, pr.number))?.state === 'merged' ? true : undefined));
      expect(bed.fake.comments(FULL, pr.number)).toHaveLength(0);
    });

    it('when the stack is rebased, then each commit of the PR is copied onto the base with the same changes', async () => {
      await bed.fake.commit({ repo: FULL, branch: 'multi', from: 'main', files: { 'a.txt': 'a\n' }, message: 'first' });
      await bed.fake.commit({ repo: FULL, branch: 'multi', files: { 'b.txt': 'b\n' }, message: 'second' });
      const pr = await bed.fake.openPullRequest({ repo: FULL, head: 'multi', base: 'main' });
      await bed.fake.commit({ repo: FULL, branch: 'main', files: { 'c.txt': 'c\n' } });
      const b = await base();
      const built = await buildOne({ number: pr.number, headSha: pr.headSha }, b.sha, 'rebase', 'rb');
      expect(await bed.fileAt(FULL, built.sha, 'a.txt')).toBe('a\n');
      expect(await bed.fileAt(FULL, built.sha, 'b.txt')).toBe('b\n');
      expect(await bed.fileAt(FULL, built.sha, 'c.txt')).toBe('c\n');
      const api = await bed.host.repoApi(REPO);
      const top = await api.commit(built.sha);
      expect(top.message.trim()).toBe('second');
      expect((await api.commit(top.parents[0] as string)).parents).toEqual([b.sha]);
    });

    it('when other lanes merged meanwhile, then a replay carries the tested change onto them', async () => {
      const pr = await openPr('one', { 'one.txt': '1\n' });
      const b = await base();
      const built = await buildOne({ number: pr.number, headSha: pr.headSha }, b.sha, 'squash', 'rp');
      const other = await bed.fake.commit({ repo: FULL, branch: 'main', files: { 'other.txt': 'o\n' } });
      const deletes = spy('git/delete-ref');
      const carried = await bed.host.carryOnto(REPO, { mode: 'replay', from: b.sha, to: built.sha, onto: other });
      if (!carried.ok) throw new Error('replay conflicted');
      expect(await bed.fileAt(FULL, carried.sha, 'one.txt')).toBe('1\n');
      expect(await bed.fileAt(FULL, carried.sha, 'other.txt')).toBe('o\n');
      expect(await bed.host.isAncestor(REPO, other, carried.sha)).toBe(true);
      expect(deletes.some((r) => String(r.params.ref).startsWith('heads/railyard-carry/'))).toBe(true);
    });

    it('when GitHub has not worked out mergeability yet, then the answer is in_progress and the result arrives as an event', async () => {
      await bed.close();
      bed = await startGithubBed({ fake: { behaviour: { mergedFlagDelayMs: 0, mergeabilityDelayMs: 300 } } });
      const pr = await openPr('late', { 'l.txt': 'l\n' });
      const heard: GithubHostEvent[] = [];
      const off = bed.host.watch(REPO, ['main'], (e) => heard.push(e));
      try {
        expect(await bed.host.mergeability(REPO, pr.number, pr.headSha)).toBe('in_progress');
        await until('a mergeability event', async () =>
          heard.some((e) => e.kind === 'mergeability' && e.mergeability === 'mergeable') ? true : undefined,
        );
      } finally {
        off();
      }
    });
  });

  describe('required statuses', () => {
    beforeEach(async () => {
      bed = await startGithubBed({
        permissions: {
          contents: 'write',
          pull_requests: 'write',
          checks: 'write',
          statuses: 'read',
          issues: 'write',
          metadata: 'read',
          administration: 'read',
        },
      });
    });
    const resolve = async (queueList: string[] = []) =>
      bed.ci.resolveRequiredStatuses({ queueList, repo: REPO, configSha: (await base()).sha, branch: 'main' });

    it('when nothing requires a check, then the run cannot start and the reason names every place looked at', async () => {
      expect(await resolve()).toMatchObject({
        error: 'START_TEST_RUN_NO_REQUIRED_STATUSES',
        message: expect.stringMatching(/ruleset or branch protection/),
      });
    });

    it('when the branch rules require checks, then they are the required statuses with source repo_provider_branch_protection', async () => {
      bed.fake.protectBranch(FULL, 'main', { contexts: ['build'], strict: false });
      bed.fake.addRuleset(FULL, { branches: ['main'], requiredChecks: [{ context: 'lint' }] });
      expect(await resolve()).toEqual({ statuses: ['lint', 'build'], source: 'repo_provider_branch_protection' });
    });

    it('when a PR changes .railyard.yml, then that is seen (without a tree read for a PR that does not) and its run is resolved with the base’s file', async () => {
      await bed.fake.commit({ repo: FULL, branch: 'main', files: { '.railyard.yml': 'merge:\n  required_statuses: [base-ci]\n' } });
      const b = await base();
      const trees = () => bed.fake.requests.count((r) => r.route === 'GET /repos/{owner}/{repo}/git/trees/{tree_sha}');
      const plain = await buildOne(await openPr('plain', { 'p.txt': 'p\n' }), b.sha, 'squash', 'cfg1');
      const before = trees();
      expect(await bed.ci.configChanges(REPO, b.sha, plain.sha)).toEqual([]);
      expect(trees()).toBe(before);
      const changes = await openPr('config', { '.railyard.yml': 'merge:\n  required_statuses: [pr-ci]\n' });
      const own = await buildOne(changes, b.sha, 'squash', 'cfg2');
      expect(await bed.ci.configChanges(REPO, b.sha, own.sha)).toEqual(['.railyard.yml']);
      expect(await bed.ci.resolveRequiredStatuses({ queueList: [], repo: REPO, configSha: b.sha, branch: 'main' })).toEqual({
        statuses: ['base-ci'],
        source: 'trunk_config',
      });
    });

    it('when a run is built on a commit Railyard made without touching the configuration, then its statuses come from the base’s file with no tree read', async () => {
      await bed.fake.commit({ repo: FULL, branch: 'main', files: { '.railyard.yml': 'merge:\n  required_statuses: [base-ci]\n' } });
      const b = await base();
      const trees = () => bed.fake.requests.count((r) => r.route === 'GET /repos/{owner}/{repo}/git/trees/{tree_sha}');
      const atBase = { queueList: [], repo: REPO, configSha: b.sha, branch: 'main' };
      expect(await bed.ci.resolveRequiredStatuses(atBase)).toEqual({ statuses: ['base-ci'], source: 'trunk_config' });
      const plain = await buildOne(await openPr('plain', { 'p.txt': 'p\n' }), b.sha, 'squash', 'cfg3');
      const before = trees();
      expect(await bed.ci.resolveRequiredStatuses({ ...atBase, configSha: plain.sha })).toEqual({
        statuses: ['base-ci'],
        source: 'trunk_config',
      });
      expect(trees()).toBe(before);
      const own = await buildOne(
        await openPr('config', { '.railyard.yml': 'merge:\n  required_statuses: [pr-ci]\n' }),
        b.sha,
        'squash',
        'cfg4',
      );
      expect(await bed.ci.resolveRequiredStatuses({ ...atBase, configSha: own.sha })).toEqual({
        statuses: ['pr-ci'],
        source: 'trunk_config',
      });
    });

    it('when .railyard.yml, .trunk/trunk.yaml or the queue name required statuses, then the branch rules are added to them, never dropped', async () => {
      bed.fake.addRuleset(FULL, { branches: ['main'], requiredChecks: [{ context: 'lint' }] });
      await bed.fake.commit({ repo: FULL, branch: 'main', files: { '.trunk/trunk.yaml': 'merge:\n  required_statuses: [trunk-ci]\n' } });
      expect(await resolve()).toEqual({ statuses: ['trunk-ci', 'lint'], source: 'trunk_config' });
      await bed.fake.commit({
        repo: FULL,
        branch: 'main',
        files: { '.railyard.yml': 'merge:\n  required_statuses: [railyard-ci, lint]\n' },
      });
      expect(await resolve()).toEqual({ statuses: ['railyard-ci', 'lint'], source: 'trunk_config' });
      expect(await resolve(['queue-ci'])).toEqual({ statuses: ['queue-ci', 'lint'], source: 'merge_instance' });
    });
  });
});

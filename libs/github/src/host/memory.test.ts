import type { RepoRef } from '@railyard/domain';
import { HostMemory } from './memory';
import type { PullView } from './repo-api';

const REPO: RepoRef = { host: 'github.com', owner: 'acme', name: 'widgets' };
const SHA = 'a'.repeat(40);
const view = (number: number): PullView => ({
  number,
  title: 't',
  author: 'alice',
  authorId: 7,
  headSha: SHA,
  headBranch: `feature-${number}`,
  baseBranch: 'main',
  state: 'open',
  draft: false,
  mergeable: true,
  repoUrl: 'https://github.com/acme/widgets',
});

describe('what the GitHub adapter remembers', () => {
  let now = 0;
  const memory = () => new HostMemory(30_000, 5_000, 10_000, () => now);

  it('when a push to the base is announced after a landing, then the landed head is no longer answered', () => {
    const m = memory();
    m.landedOn(REPO, 'main', SHA);
    expect(m.knownHead(REPO, 'main')).toBe(SHA);
    m.forget({ kind: 'branch', repo: REPO, branch: 'main' });
    expect(m.knownHead(REPO, 'main')).toBeUndefined();
    // The link to the landed commit is kept: it names what Railyard landed, whatever came after.
    expect(m.lastLanding(REPO, 'main')).toBe(SHA);
  });

  it('when the PR is announced changed, then its recent read is dropped', () => {
    const m = memory();
    m.pullRead(REPO, view(3), { login: 'alice', id: 7 });
    expect(m.recentPull(REPO, 3)?.number).toBe(3);
    expect(m.authorOf(REPO, SHA)).toEqual({ login: 'alice', id: 7 });
    m.forget({ kind: 'pull', repo: REPO, number: 3 });
    expect(m.recentPull(REPO, 3)).toBeUndefined();
  });

  it('when test branches were listed, then own creations and deletions keep the list until it ages out', () => {
    const m = memory();
    expect(m.branchesOf(REPO)).toBeUndefined();
    m.listedBranches(REPO, new Map([['railyard-merge/pr-1/a', SHA]]));
    m.testBranchMoved(REPO, 'railyard-merge/pr-2/b', SHA);
    m.testBranchMoved(REPO, 'railyard-merge/pr-1/a', null);
    expect([...(m.branchesOf(REPO)?.keys() ?? [])]).toEqual(['railyard-merge/pr-2/b']);
    expect(m.testBranchSha(REPO, 'railyard-merge/pr-2/b')).toBe(SHA);
    now += 30_001;
    expect(m.branchesOf(REPO)).toBeUndefined();
    expect(m.testBranchSha(REPO, 'railyard-merge/pr-2/b')).toBeUndefined();
  });

  it('when the repository is resynced, then its branch list and landed heads are forgotten', () => {
    const m = memory();
    m.listedBranches(REPO, new Map());
    m.landedOn(REPO, 'main', SHA);
    m.forget({ kind: 'resync', repo: REPO });
    expect(m.branchesOf(REPO)).toBeUndefined();
    expect(m.knownHead(REPO, 'main')).toBeUndefined();
  });

  it('when a check run is announced on a commit, then only its check runs are read again, not its statuses', () => {
    const m = memory();
    m.listedStatuses(REPO, SHA, [{ context: 'lint', state: 'success', url: null }]);
    m.listedCheckRuns(REPO, SHA, []);
    m.forget({ kind: 'status', repo: REPO, sha: SHA, report: 'check' });
    expect(m.statusesOf(REPO, SHA)).toHaveLength(1);
    expect(m.checkRunsOf(REPO, SHA)).toBeUndefined();
    m.forget({ kind: 'status', repo: REPO, sha: SHA, report: 'status' });
    expect(m.statusesOf(REPO, SHA)).toBeUndefined();
  });

  it('when a kind of report on a commit was heard before the adapter wrote it, then that kind does not start empty', () => {
    const m = memory();
    const other = 'b'.repeat(40);
    m.wroteCommit(REPO, SHA);
    expect(m.statusesOf(REPO, SHA)).toEqual([]);
    expect(m.checkRunsOf(REPO, SHA)).toEqual([]);
    m.forget({ kind: 'status', repo: REPO, sha: other, report: 'check' });
    m.wroteCommit(REPO, other);
    expect(m.checkRunsOf(REPO, other)).toBeUndefined();
    // A check run heard of says nothing of commit statuses: those still start empty.
    expect(m.statusesOf(REPO, other)).toEqual([]);
  });

  it('when a status event names no kind or the repository is resynced, then both kinds are read again', () => {
    const m = memory();
    m.wroteCommit(REPO, SHA);
    m.forget({ kind: 'status', repo: REPO, sha: SHA });
    expect(m.statusesOf(REPO, SHA)).toBeUndefined();
    expect(m.checkRunsOf(REPO, SHA)).toBeUndefined();
    m.listedCheckRuns(REPO, SHA, []);
    m.forget({ kind: 'resync', repo: REPO });
    expect(m.checkRunsOf(REPO, SHA)).toBeUndefined();
  });
});

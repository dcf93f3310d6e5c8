import { entryOf } from '@railyard/domain';
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { commitOnBranch, gitDirOf } from '@railyard/testkit';
import { QueueDriver, type CodeHost, type DriverHop } from '@railyard/queue-driver';
import { engineLog, engineWriter } from './engine-commands';
import { FactsReader } from './facts';
import { BED_REPO, localBed, type LocalBed } from './testing/local-bed';

let bed: LocalBed;
afterEach(() => bed.close());

const quiet = { info: () => undefined, warn: () => undefined };

/** The bed's host, counting the test branches being built at the same moment. */
const countingBuilds = (host: CodeHost) => {
  const seen = { inFlight: 0, most: 0, built: [] as string[] };
  const counted: CodeHost = Object.create(host) as CodeHost;
  counted.buildTestBranch = async (repo, request) => {
    seen.most = Math.max(seen.most, ++seen.inFlight);
    try {
      const built = await host.buildTestBranch(repo, request);
      if (built.ok) seen.built.push(built.branch);
      return built;
    } finally {
      seen.inFlight--;
    }
  };
  return { counted, seen };
};

const driverWith = (host: CodeHost, hops: DriverHop[] = []) => {
  const facts = new FactsReader(bed.host, bed.ci);
  return new QueueDriver({
    log: engineLog(
      engineWriter(bed.store, () => new Date()),
      bed.stream,
    ),
    facts,
    host,
    ci: bed.ci,
    logger: quiet,
    now: () => new Date(),
    newRunId: randomUUID,
    observeHop: (hop) => hops.push(hop),
  });
};

const testBranches = (): string[] =>
  execFileSync(
    'git',
    [`--git-dir=${gitDirOf(bed.gitRoot, BED_REPO)}`, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/railyard-merge/'],
    {
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter(Boolean);

describe('QueueDriver starting the runs of one round', () => {
  beforeEach(async () => {
    bed = await localBed();
    await bed.command({ type: 'CreateQueue', queueId: bed.queueId, repo: BED_REPO, branch: 'main', settings: { concurrency: 6 } });
  });

  it('when a round starts three runs, then their test branches are built at once and they are recorded and triggered in plan order', async () => {
    for (const n of [1, 2, 3]) await bed.openAndSubmit(n);
    const { counted, seen } = countingBuilds(bed.host);
    const hops: DriverHop[] = [];
    await driverWith(counted, hops).pass({ verify: true });
    expect(seen.most).toBeGreaterThan(1);
    expect(bed.ci.triggered.map((t) => t.branch.split('/')[1])).toEqual(['pr-1', 'pr-2', 'pr-3']);
    const s = await bed.read();
    expect([1, 2, 3].map((n) => entryOf(s, n)?.state)).toEqual(['testing', 'testing', 'testing']);
    expect(hops.filter((h) => h === 'decided')).toHaveLength(1);
    expect(hops.filter((h) => h === 'branch_built')).toHaveLength(3);
    expect(hops.filter((h) => h === 'check_started')).toHaveLength(3);
  });

  it('when the first run of a round conflicts with the target, then it fails and the rest start after a new plan, leaving no stray test branch', async () => {
    await bed.openAndSubmit(1, 'mine\n');
    // More runs than are built at once (startConcurrency 4).
    for (const n of [2, 3, 4, 5, 6]) await bed.openAndSubmit(n);
    // PR 1 no longer applies: main now holds another f1.txt.
    await commitOnBranch(bed.gitRoot, BED_REPO, { branch: 'main', files: { 'f1.txt': 'theirs\n' } });
    const { counted, seen } = countingBuilds(bed.host);
    await driverWith(counted).pass({ verify: true });
    const s = await bed.read();
    expect([1, 2, 3, 4, 5, 6].map((n) => entryOf(s, n)?.state)).toEqual(['failed', 'testing', 'testing', 'testing', 'testing', 'testing']);
    expect(bed.ci.triggered.map((t) => t.branch.split('/')[1])).toEqual(['pr-2', 'pr-3', 'pr-4', 'pr-5', 'pr-6']);
    // Only the branches of the recorded runs are left.
    const live = new Set(bed.ci.triggered.map((t) => t.branch));
    expect(seen.built.filter((b) => !live.has(b))).toEqual([]);
    expect(new Set(testBranches())).toEqual(live);
  });
});

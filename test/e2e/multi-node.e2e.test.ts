import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { queueIdOf, queueStreamOf } from '@railyard/domain';
import { createEventStore } from '@railyard/eventstore';
import { FakeGithub } from '@railyard/testkit';
import { describePostgres } from '../contract/support/postgres';
import {
  Cluster,
  kurrentEventStore,
  postgresEventStore,
  seededRandom,
  type ClusterNode,
  type NodeKind,
  type SharedEventStore,
} from './support/cluster';
import { eventually, sleep } from './support/engine-world';
import { ciFailingOnFail, githubAppEnv } from './support/github-app';
import { dropNamespace, REDIS_URL, uniqueNamespace } from './support/redis';
import { TOKENS, TOKEN_ENV } from './support/world';

/**
 * Issue 13's multi-node shape: two API replicas, an active projector with a standby and two engines,
 * each process on a data dir of its own that starts empty, sharing only the event store (PostgreSQL,
 * or KurrentDB when RAILYARD_KURRENTDB_URL is set), Redis and the code host (the fake GitHub). No
 * process is given a git root or any other shared path; docs/operations.md describes the topology.
 */

jest.setTimeout(600_000);

const OWNER = 'acme';
const TERMINAL = ['merged', 'failed', 'cancelled'];
/**
 * The queue of part (b): 20 PRs, of which these positions fail CI. At concurrency 1 it is still testing
 * when the last kill lands; 30 added a third to the file's time for more of the same moments (D302).
 */
const QUEUE_SIZE = 20;
const BAD_POSITIONS = new Set([3, 8, 13, 17]);
/** The engine of part (b) is killed within this long after the first submission, while the queue still tests. */
const ENGINE_KILL_WINDOW_MS = 10_000;
const SEED = Number(process.env.RAILYARD_E2E_SEED) || Math.floor(Math.random() * 2 ** 31);

type Recorded = { type: string; data: Record<string, unknown> };

const multiNodeSuite = (title: string, openStore: () => Promise<SharedEventStore>): void =>
  describe(title, () => {
    // A repository of the run's own: a KurrentDB server keeps every run's streams.
    const name = `widgets-${randomBytes(3).toString('hex')}`;
    const full = `${OWNER}/${name}`;
    const repo = { host: 'github.com', owner: OWNER, name };
    const namespace = uniqueNamespace('multinode');
    let store: SharedEventStore;
    let fake: FakeGithub;
    let cluster: Cluster;

    const apis = (): ClusterNode[] => cluster.running('api');
    const post = (node: ClusterNode, path: string, body: object, token = TOKENS.write) =>
      request(node.url).post(`/v1${path}`).set('x-api-token', token).send(body);
    const readPr = async (node: ClusterNode, number: number): Promise<{ state: string; id: string } | undefined> => {
      const res = await post(node, '/getSubmittedPullRequest', { repo, targetBranch: 'main', pr: { number } }, TOKENS.read);
      return res.status === 200 ? (res.body as { state: string; id: string }) : undefined;
    };
    const routeWebhooks = (node: ClusterNode): void => fake.setWebhookUrl(`${node.url}/github/webhooks`);
    const git = (...args: string[]): string =>
      execFileSync('git', [`--git-dir=${fake.gitDir(full)}`, ...args], { encoding: 'utf8' }).trim();
    const checkRun = (sha: string, run = 'Railyard (main)') => fake.checkRuns(full, sha).find((r) => r.name === run);
    /** How many times a PR's head landed on main's first-parent line: as a merge parent, or fast-forwarded to itself. */
    const landings = (head: string): number =>
      git('rev-list', '--first-parent', '--parents', 'main')
        .split('\n')
        .map((line) => line.split(' '))
        .filter(([sha, , ...merged]) => sha === head || merged.includes(head)).length;
    const queueEvents = async (): Promise<Recorded[]> => {
      const events = await createEventStore(store.config);
      try {
        const recorded = await events.readStream(queueStreamOf(queueIdOf(repo, 'main')));
        return recorded.map((r) => ({ type: r.type, data: r.data as Record<string, unknown> }));
      } finally {
        await events.close();
      }
    };
    let nextPr = 1;
    const openPr = async (content?: string): Promise<{ number: number; head: string }> => {
      const n = nextPr++;
      await fake.commit({
        repo: full,
        branch: `pr-${n}`,
        from: 'main',
        files: { [`f${n}.txt`]: content ?? `${n}\n` },
        message: `PR ${n}`,
        user: 'alice',
      });
      const pr = await fake.openPullRequest({ repo: full, head: `pr-${n}`, base: 'main', title: `PR ${n}`, user: 'alice' });
      return { number: pr.number, head: pr.headSha };
    };
    const fail = (what: string): Error =>
      new Error(
        `${what} (seed ${SEED})\n${cluster.nodes.map((n) => `--- ${n.name}\n${n.output().split('\n').slice(-15).join('\n')}`).join('\n')}`,
      );

    beforeAll(async () => {
      store = await openStore();
      fake = await FakeGithub.start({ behaviour: { mergedFlagDelayMs: 200 } });
      await fake.createRepo({ repo: full, files: { 'README.md': `# ${name}\n` } });
      fake.setCollaborator(full, 'alice', 'write');
      fake.allowBypass(full);
      // The team's CI builds the branches Railyard pushes and fails any tree holding the word FAIL.
      ciFailingOnFail(fake, full);
      cluster = new Cluster({
        ...store.env,
        // Secrets from configuration, as the distributed shape wants them: no bootstrap file in any data dir.
        RAILYARD_API_TOKENS: TOKEN_ENV,
        RAILYARD_PAGE_TOKEN_SECRET: 'multi-node-page-token-secret',
        RAILYARD_ENGINE: 'off',
        RAILYARD_REDIS_URL: REDIS_URL,
        RAILYARD_REDIS_NAMESPACE: namespace,
        RAILYARD_PUBLIC_URL: 'http://railyard.example',
        ...githubAppEnv(fake),
        RAILYARD_GITHUB_WRITE_INTERVAL_MS: '20',
        RAILYARD_ENGINE_TICK_MS: '200',
        RAILYARD_ENGINE_VERIFY_MS: '3000',
        // A killed holder's leases must run out quickly for the standbys to take over within the test.
        RAILYARD_ENGINE_LEASE_TTL_MS: '1500',
        RAILYARD_PROJECTOR_LEASE_TTL_MS: '1500',
        RAILYARD_READ_YOUR_WRITES_TIMEOUT_MS: '5000',
      });
      await cluster.start('projector');
      await Promise.all([
        cluster.start('api'),
        cluster.start('api'),
        cluster.start('projector'),
        cluster.start('engine'),
        cluster.start('engine'),
      ]);
    });

    afterAll(async () => {
      await fake?.webhooks.settled();
      const violations = fake ? [...fake.violations] : [];
      await cluster?.stop();
      await dropNamespace(namespace);
      await fake?.stop();
      expect(violations).toEqual([]);
    });

    it("when the README's GitHub walk-through runs across the replicas, then the PR commented on one replica merges with main fast-forwarded to its tested commit", async () => {
      const [first, second] = apis() as [ClusterNode, ClusterNode];
      routeWebhooks(first);
      fake.install({ account: OWNER });
      await fake.webhooks.settled();
      expect(fake.webhooks.deliveries.find((d) => d.event === 'installation')?.attempts.at(-1)?.status).toBe(200);
      const created = await post(
        first,
        '/createQueue',
        { repo, targetBranch: 'main', mergeMethod: 'merge_commit', requiredStatuses: ['ci'], flakeRetries: 0 },
        TOKENS.admin,
      );
      expect(created.status).toBe(200);

      const pr = await openPr();
      routeWebhooks(second);
      const comment = fake.comment(full, pr.number, 'alice', '/railyard merge');
      await eventually('the /railyard merge comment gets +1', async () =>
        fake.comments(full, pr.number).some((c) => c.id === comment.id && c.reactions.some((r) => r.content === '+1')) ? true : undefined,
      );
      await eventually('the check run on the PR', async () => checkRun(pr.head));
      await eventually(
        'the PR to merge',
        async () => ((await readPr(first, pr.number))?.state === 'merged' ? true : undefined),
        120_000,
      ).catch(() => {
        throw fail('PR #1 did not merge');
      });
      const main = (await fake.branchSha(full, 'main')) as string;
      // Fast-forwarded: main is the very commit CI passed on a test branch, and it holds the PR's head.
      expect(checkRun(main, 'ci')?.conclusion).toBe('success');
      expect(landings(pr.head)).toBe(1);
      await eventually('GitHub to show the PR merged', async () => (fake.pullRequest(full, pr.number).merged ? true : undefined));
      await eventually('the check run to say merged', async () => (checkRun(pr.head)?.output.title === 'Merged' ? true : undefined));
      expect(checkRun(pr.head)?.conclusion).toBe('success');
      expect((await readPr(second, pr.number))?.state).toBe('merged');
    });

    it('when 20 PRs are submitted through both replicas while an API replica, the active projector and an engine are killed -9 and replaced on empty data dirs, then every good PR merges once, every bad one fails, no acknowledged submit is lost and no replica reports a state the events contradict', async () => {
      const random = seededRandom(SEED);
      const prs: { number: number; head: string; bad: boolean }[] = [];
      for (let i = 0; i < QUEUE_SIZE; i++) {
        const bad = BAD_POSITIONS.has(i);
        prs.push({ ...(await openPr(bad ? 'FAIL\n' : undefined)), bad });
      }
      // The API replica and the projector die while the submissions come in (after a random number
      // of them were answered), the engine at a random moment of the run.
      const killAfterSubmits = {
        api: 3 + Math.floor(random() * (QUEUE_SIZE - 5)),
        projector: 3 + Math.floor(random() * (QUEUE_SIZE - 5)),
      };
      const engineKillMs = Math.floor(random() * ENGINE_KILL_WINDOW_MS);
      const victimApi = random() < 0.5 ? 0 : 1;
      process.stdout.write(
        `multi-node e2e (${store.label}): seed ${SEED}; kills after submits ${JSON.stringify(killAfterSubmits)}, API replica ${victimApi}, engine at ${engineKillMs} ms\n`,
      );

      const started = Date.now();
      const log: string[] = [];
      const kill = async (kind: NodeKind): Promise<void> => {
        const victim =
          kind === 'api'
            ? apis()[victimApi]
            : kind === 'projector'
              ? // The active one: the standby has not logged winning the lease.
                cluster.running('projector').find((p) => p.output().includes('projector lease acquired'))
              : cluster.running('engine').find((e) => e.output().includes('engine took a queue lease'));
        const target = victim ?? (cluster.running(kind)[0] as ClusterNode);
        log.push(`${Date.now() - started} ms: kill -9 ${target.name}`);
        // Webhooks follow the live replicas, as a load balancer's health check would send them.
        if (kind === 'api') routeWebhooks(apis().find((a) => a !== target) as ClusterNode);
        const replacement = await cluster.crashAndReplace(target);
        log.push(`${Date.now() - started} ms: ${replacement.name} started`);
      };
      const kills = [sleep(engineKillMs).then(() => kill('engine'))];

      // What each replica said about a PR while the queue ran: a terminal state read must be the final one.
      const seen: { number: number; state: string; node: string }[] = [];
      let reading = true;
      const reads = (async () => {
        while (reading) {
          for (const node of apis()) {
            const pr = prs[Math.floor(random() * prs.length)] as (typeof prs)[number];
            const read = await readPr(node, pr.number).catch(() => undefined);
            if (read) seen.push({ number: pr.number, state: read.state, node: node.name });
          }
          await sleep(100);
        }
      })();

      // Alternate replicas; a submit without an answer (its replica died, or no projector yet) is sent
      // again, to whichever replica is up, as a client of a load balancer would.
      const acknowledged: { number: number; id: string; via: string }[] = [];
      for (const [i, pr] of prs.entries()) {
        for (let attempt = 0; ; attempt++) {
          const live = apis();
          const node = live[(i + attempt) % live.length] as ClusterNode;
          const res = await post(node, '/submitPullRequest', { repo, targetBranch: 'main', pr: { number: pr.number } }).catch(
            () => undefined,
          );
          if (res && res.status >= 200 && res.status < 300) {
            acknowledged.push({ number: pr.number, id: (res.body as { id: string }).id, via: node.name });
            for (const kind of ['api', 'projector'] as const) if (acknowledged.length === killAfterSubmits[kind]) kills.push(kill(kind));
            break;
          }
          if (res && res.status < 500) throw fail(`submit of #${pr.number} refused: ${res.status} ${JSON.stringify(res.body)}`);
          if (attempt > 200) throw fail(`submit of #${pr.number} never answered`);
          await sleep(100);
        }
      }
      log.push(`${Date.now() - started} ms: all ${QUEUE_SIZE} submissions answered`);
      await Promise.all(kills);

      const finals = new Map<number, string>();
      for (const pr of prs) {
        const state = await eventually(
          `PR #${pr.number} to end`,
          async () => {
            const read = await readPr(apis()[0] as ClusterNode, pr.number);
            return read && TERMINAL.includes(read.state) ? read.state : undefined;
          },
          240_000,
        ).catch(() => {
          throw fail(`PR #${pr.number} did not end; ${log.join('; ')}`);
        });
        finals.set(pr.number, state);
      }
      reading = false;
      await reads;
      process.stdout.write(`multi-node e2e (${store.label}): ${log.join('; ')}; all ended after ${Date.now() - started} ms\n`);

      expect(prs.map((p) => [p.number, finals.get(p.number)])).toEqual(prs.map((p) => [p.number, p.bad ? 'failed' : 'merged']));
      // Merged once: one landing of its head on main, one PrMerged in the queue's history.
      const events = await queueEvents();
      for (const pr of prs) {
        expect([pr.number, landings(pr.head)]).toEqual([pr.number, pr.bad ? 0 : 1]);
        const merges = events.filter((e) => e.type === 'PrMerged' && e.data.prNumber === pr.number).length;
        expect([pr.number, merges]).toEqual([pr.number, pr.bad ? 0 : 1]);
        if (!pr.bad)
          await eventually(`GitHub to show #${pr.number} merged`, async () =>
            fake.pullRequest(full, pr.number).merged ? true : undefined,
          );
      }
      // No acknowledged write lost: every answered submit is in the history under the id it was answered with.
      const submitted = new Set(events.filter((e) => e.type === 'PrSubmitted').map((e) => e.data.entryId));
      expect(acknowledged.filter((a) => !submitted.has(a.id))).toEqual([]);
      expect(acknowledged.map((a) => a.number).sort((a, b) => a - b)).toEqual(prs.map((p) => p.number));
      // No read lies: whatever terminal state a replica reported during the run is the final one, and
      // every replica running now answers the final state of every PR.
      const final = (n: number): string => (events.some((e) => e.type === 'PrMerged' && e.data.prNumber === n) ? 'merged' : 'failed');
      expect(seen.filter((s) => TERMINAL.includes(s.state) && s.state !== final(s.number))).toEqual([]);
      for (const node of apis()) {
        expect((await post(node, '/getQueue', { repo, targetBranch: 'main' }, TOKENS.read)).body.enqueuedPullRequests).toEqual([]);
        const states = await Promise.all(prs.map(async (p) => [p.number, (await readPr(node, p.number))?.state]));
        expect(states).toEqual(prs.map((p) => [p.number, final(p.number)]));
      }
      expect(log.filter((l) => l.includes('kill -9'))).toHaveLength(3);
    });

    it('when the run is over, then every process, the killed ones included, left its data dir empty: nothing on local disk for another node or a replacement to need', () => {
      expect(cluster.nodes.length).toBeGreaterThanOrEqual(6);
      expect(cluster.leftOnDisk()).toEqual(Object.fromEntries(cluster.nodes.map((n) => [n.name, []])));
    });
  });

describePostgres('multi-node e2e on PostgreSQL', (db) =>
  multiNodeSuite('own data dir per process, sharing PostgreSQL, Redis and the fake GitHub', async () => postgresEventStore(await db.url())),
);

const kurrentUrl = process.env.RAILYARD_KURRENTDB_URL;
if (kurrentUrl) {
  multiNodeSuite('multi-node on KurrentDB', async () => kurrentEventStore(kurrentUrl));
} else {
  // Straight to stderr: jest drops console output of a suite whose tests are all skipped.
  process.stderr.write('\nKurrentDB multi-node e2e SKIPPED: no KurrentDB server here; set RAILYARD_KURRENTDB_URL to run it\n');
  describe.skip('multi-node on KurrentDB (SKIPPED: RAILYARD_KURRENTDB_URL is not set)', () => {
    it('when RAILYARD_KURRENTDB_URL is set, then the multi-node e2e runs on KurrentDB', () => undefined);
  });
}

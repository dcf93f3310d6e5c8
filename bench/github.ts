import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Registry } from 'prom-client';
import { decide, queueIdOf, queueStreamOf, type QueueCommand, type QueueSettingsInput, type RepoRef } from '@railyard/domain';
import { startEngine } from '@railyard/engine';
import { createBlobStore, SqliteEventStore } from '@railyard/eventstore';
import { createGithubApp, forgetGitObjects, GithubCi, GithubCodeHost } from '@railyard/github';
import { createLogger } from '@railyard/observability';
import { queueCommandHandler } from '@railyard/runtime';
import { FakeGithub, makeTempDir, removeTempDir, type RequestRecord } from '@railyard/testkit';

/**
 * `npm run bench -- github [single|batch|parallel]`: REST calls per merged PR (squash, the default
 * merge method, and single mode with merge commits too), the GitHub adapter
 * driven by the real engine (in process, SQLite log) against the fake GitHub with its CI reporting a
 * check run `ci` on every test branch, required by a ruleset. Webhooks reach the adapter as the API's
 * route hands them over. Counted: every request the fake answered while the queue drained (reads,
 * writes, token requests), divided by the PRs merged, but the 304s to conditional reads, which
 * GitHub does not count against the budget (reported apart); the API's submission reads are counted apart.
 * Then the engine idles with its verification pass every 30 s, and the calls it makes per hour are
 * added for the 300 merges/h projection against the 5,000/h installation budget.
 */

const REPO: RepoRef = { host: 'github.com', owner: 'acme', name: 'widgets' };
const FULL = 'acme/widgets';
const progress = (line: string): void => void process.stderr.write(`[bench github] ${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const meta = { actor: 'bench', correlationId: 'bench' };
const VERIFY_MS = 30_000;
const BUDGET_PER_HOUR = 5000;

interface Mode {
  name: string;
  prs: number;
  settings: QueueSettingsInput;
  targets: boolean;
}

const MODES: Mode[] = [
  { name: 'single', prs: 20, settings: { concurrency: 1 }, targets: false },
  { name: 'single-merge-commit', prs: 20, settings: { concurrency: 1, mergeMethod: 'merge_commit' }, targets: false },
  { name: 'batch', prs: 24, settings: { concurrency: 1, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 1 }, targets: false },
  { name: 'parallel', prs: 24, settings: { mode: 'parallel', concurrency: 4 }, targets: true },
];

const measure = async (mode: Mode): Promise<object> => {
  // Cases share git objects (the same files make the same trees): each starts from cold.
  forgetGitObjects();
  const dir = await makeTempDir('railyard-bench-github-');
  const fake = await FakeGithub.start({ validate: false, behaviour: { mergedFlagDelayMs: 50 } });
  await fake.createRepo({ repo: FULL, files: { 'README.md': '# widgets\n' } });
  fake.allowBypass(FULL);
  fake.addRuleset(FULL, { branches: ['main'], requiredChecks: [{ context: 'ci' }] });
  fake.install({ account: 'acme' });
  fake.ci.configure(FULL, { branches: (b) => b.startsWith('railyard-merge/'), checks: [{ name: 'ci', delayMs: 50 }] });
  const app = await createGithubApp({
    settings: { appId: fake.appId, privateKey: fake.appPrivateKey, webhookSecret: fake.webhookSecret, apiUrl: fake.url },
    registry: new Registry(),
    // Spacing writes a second apart changes when calls happen, not how many: shortened to keep the run short.
    writeMinTimeMs: 5,
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  const host = new GithubCodeHost({ app, appId: fake.appId, host: 'github.com' });
  const ci = new GithubCi({ host });
  const hooks: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      host.receive(String(req.headers['x-github-event']), JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  fake.setWebhookUrl(`http://127.0.0.1:${(hooks.address() as AddressInfo).port}/`);
  const store = new SqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  const blobs = await createBlobStore({ kind: 'fs', dir: path.join(dir, 'blobs') });
  const api = queueCommandHandler<QueueCommand>(store, decide);
  const stream = queueStreamOf(queueIdOf(REPO, 'main'));
  try {
    await api.execute(
      stream,
      { type: 'CreateQueue', queueId: queueIdOf(REPO, 'main'), repo: REPO, branch: 'main', settings: mode.settings, state: 'paused' },
      meta,
    );
    progress(`${mode.name}: opening ${mode.prs} PRs`);
    const numbers: number[] = [];
    for (let i = 1; i <= mode.prs; i++) {
      await fake.commit({ repo: FULL, branch: `pr-${i}`, from: 'main', files: { [`f${i}.txt`]: `${i}\n` }, message: `PR ${i}` });
      numbers.push((await fake.openPullRequest({ repo: FULL, head: `pr-${i}`, base: 'main', title: `PR ${i}` })).number);
    }
    await fake.webhooks.settled();
    fake.requests.reset();
    for (const n of numbers) {
      const pr = await host.snapshot(REPO, n);
      if (!pr) throw new Error(`PR ${n} missing`);
      await api.execute(stream, { type: 'SubmitPullRequest', pr }, meta);
      if (mode.targets) {
        const digest = await blobs.put(Buffer.from(`target-${n}`, 'utf8'));
        await api.execute(
          stream,
          { type: 'SetImpactedTargets', prNumber: n, headSha: pr.headSha, targets: { digest, count: 1, all: false } },
          meta,
        );
      }
    }
    // A 304 to a conditional read costs no budget on GitHub: counted apart.
    const budgeted = (r: RequestRecord) => r.status !== 304;
    const submissionCalls = fake.requests.count(budgeted);
    fake.requests.reset();
    await api.execute(stream, { type: 'UpdateQueue', state: 'running' } as QueueCommand, meta);
    const engine = startEngine({
      eventStore: store,
      host,
      ci,
      blobs,
      logger: createLogger('bench-github', 'error'),
      tickMs: 200,
      verifyMs: VERIFY_MS,
    });
    const t0 = performance.now();
    let merged = 0;
    try {
      progress(`${mode.name}: draining`);
      for (;;) {
        const events = await store.readStream(stream);
        merged = events.filter((e) => e.type === 'PrMerged').length;
        const ended = events.filter((e) => ['PrMerged', 'PrFailed', 'PrCancelled'].includes(e.type)).length;
        if (ended >= numbers.length) break;
        if (performance.now() - t0 > 15 * 60_000) throw new Error(`${mode.name}: only ${ended} of ${numbers.length} PRs ended`);
        await sleep(200);
      }
      const seconds = (performance.now() - t0) / 1000;
      await fake.webhooks.settled();
      await engine.idle();
      const calls = fake.requests.count(budgeted);
      const notModified = fake.requests.count((r) => r.status === 304);
      const byRoute = Object.entries(fake.requests.byRoute(budgeted)).sort((a, b) => b[1] - a[1]);
      const writes = fake.requests.count((r) => !r.route.startsWith('GET '));
      // Idle: what one verification pass costs once what the adapter remembers has aged out (30 s),
      // as it has between two passes 30 s apart.
      await sleep(31_000);
      fake.requests.reset();
      engine.poke();
      await engine.idle();
      const perVerify = fake.requests.count(budgeted);
      const verifyPerHour = perVerify * (3_600_000 / VERIFY_MS);
      const perMerge = calls / Math.max(merged, 1);
      const submitPerMerge = submissionCalls / Math.max(merged, 1);
      const at300 = Math.round((perMerge + submitPerMerge) * 300 + verifyPerHour);
      return {
        name: `github-${mode.name}`,
        prs: numbers.length,
        merged,
        restCallsPerMergedPr: round(perMerge),
        writesPerMergedPr: round(writes / Math.max(merged, 1)),
        notModifiedPerMergedPr: round(notModified / Math.max(merged, 1)),
        submissionCallsPerPr: round(submitPerMerge),
        callsPerVerifyPass: perVerify,
        callsPerHourAt300MergesPerHour: at300,
        underInstallationBudget: at300 < BUDGET_PER_HOUR,
        drainSeconds: round(seconds, 1),
        routes: Object.fromEntries(byRoute),
      };
    } finally {
      await engine.stop();
    }
  } finally {
    await host.close();
    await ci.close();
    await new Promise<void>((resolve) => hooks.close(() => resolve()));
    await fake.webhooks.settled();
    await fake.stop();
    await store.close();
    await blobs.close();
    await removeTempDir(dir);
  }
};

export async function* run(args: string[]): AsyncIterable<object> {
  const only = args[0];
  for (const mode of MODES) if (!only || mode.name.startsWith(only)) yield await measure(mode);
}

import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { buildApp, QueueCommands, TokenRegistry, parseTokenList, withCiPages } from '@railyard/api';
import { MemoryEventStore, MemoryBlobStore } from '@railyard/eventstore';
import { LocalGitHost } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { runProjector } from '@railyard/projector';
import { MemoryReadModelStore } from '@railyard/readmodels';
import { makeTempDir } from '@railyard/testkit';
import { BENCH_REPO, prepareRepository } from './support/git-fixture';

(async () => {
  const variant = process.env.VARIANT ?? 'full';
  const root = await makeTempDir('exp-');
  const gitRoot = path.join(root, 'git');
  await prepareRepository(gitRoot, ['main'], Array.from({ length: 50 }, (_, i) => ({ number: i + 1, base: 'main' })));
  const logger = createLogger('exp', variant.includes('nolog') ? 'warn' : 'info');
  const eventStore = new MemoryEventStore();
  const readModels = new MemoryReadModelStore();
  runProjector({ eventStore, readModels, logger });
  const commands = new QueueCommands(eventStore, readModels, logger, { clock: { now: () => new Date() } });
  const deps = { commands, readModels, gitHost: new LocalGitHost({ root: gitRoot }), blobs: new MemoryBlobStore(), tokens: new TokenRegistry(parseTokenList('b:0123456789abcdef0123:admin')), logger };
  let app: express.Express = buildApp(deps);
  if (variant.includes('ci')) app = withCiPages(app, deps, { statuses: undefined as never, commits: undefined as never, dataDir: root });
  const server = app.listen(0, '127.0.0.1', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const h = { 'content-type': 'application/json', 'x-api-token': '0123456789abcdef0123' };
    await fetch(`${url}/createQueue`, { method: 'POST', headers: h, body: JSON.stringify({ repo: BENCH_REPO, targetBranch: 'main', state: 'paused' }) });
    for (let n = 1; n <= 50; n++) await fetch(`${url}/submitPullRequest`, { method: 'POST', headers: h, body: JSON.stringify({ repo: BENCH_REPO, targetBranch: 'main', pr: { number: n } }) });
    process.stdout.write(`${JSON.stringify({ message: 'railyard listening', port: (server.address() as AddressInfo).port })}\n`);
  });
})();

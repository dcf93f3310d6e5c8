import { gitDirOf } from '@railyard/testkit';
import { execFileSync } from 'node:child_process';
import {
  NO_FAIL_CHECK,
  REPO,
  TOKENS,
  client,
  configureCi,
  mainSha,
  mainTree,
  makeWorld,
  openPrWithFile,
  prReaches,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';

jest.setTimeout(120_000);

let world: World;
let server: RunningProcess;

const testBranches = (): string[] =>
  execFileSync(
    'git',
    [`--git-dir=${gitDirOf(world.gitRoot, REPO)}`, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/railyard-merge/'],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter(Boolean);

beforeAll(async () => {
  world = await makeWorld();
  await configureCi(world, { tests: NO_FAIL_CHECK });
  server = await startEmbedded(world);
  expect((await client(server.url, TOKENS.admin).createQueue({ concurrency: 1 })).status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('the merge engine, single PRs', () => {
  it('when a PR passes its .railyard.yml check, then it merges and main holds exactly the tested tree', async () => {
    await openPrWithFile(world, 1, 'one\n');
    expect((await client(server.url, TOKENS.write).submit(1)).status).toBe(200);
    const merged = await prReaches(server.url, 1, ['merged', 'failed', 'cancelled']);
    expect(merged.state).toBe('merged');
    const details = merged as { state: string };
    expect(details.state).toBe('merged');
    const head = await mainSha(world);
    const tested = execFileSync('git', [`--git-dir=${gitDirOf(world.gitRoot, REPO)}`, 'show', '-s', '--format=%s', head], {
      encoding: 'utf8',
    }).trim();
    expect(tested).toBe('PR 1 (#1)');
    expect(
      execFileSync('git', [`--git-dir=${gitDirOf(world.gitRoot, REPO)}`, 'cat-file', 'blob', `${head}:f1.txt`], { encoding: 'utf8' }),
    ).toBe('one\n');
    expect(await mainTree(world)).toMatch(/^[0-9a-f]{40}$/);
    await expectEventually(() => testBranches().length === 0);
  });

  it('when a PR fails its required check, then it fails naming the check and main does not move', async () => {
    const before = await mainSha(world);
    await openPrWithFile(world, 2, 'FAIL\n');
    expect((await client(server.url, TOKENS.write).submit(2)).status).toBe(200);
    const failed = await prReaches(server.url, 2, ['merged', 'failed', 'cancelled']);
    expect(failed.state).toBe('failed');
    expect(await mainSha(world)).toBe(before);
  });
});

const expectEventually = async (ok: () => boolean, timeoutMs = 10_000): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 100));
  }
};

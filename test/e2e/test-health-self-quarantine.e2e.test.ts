import { execFile } from 'node:child_process';
import { commitOnBranch, gitDirOf, openPr } from '@railyard/testkit';
import { client, REPO } from './support/client';
import { testHealthClient } from './support/junit';
import { startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKEN_ENV, TOKENS, type World } from './support/world';

/**
 * Issue 25, item 3, through the engine and the local CI on real git: a pull request's own JUnit
 * reports (a `<flakyFailure>` in its check's report, or an upload for its branch made with a write
 * token) must not quarantine a test and so open the gate for itself or for a later pull request. A
 * test whose flakiness other pull requests show is still waived, and a good PR merges throughout. Once
 * the repository names its evidence reporters, a write token's forged uploads no longer count.
 */
jest.setTimeout(600_000);

const ORG = 'acme-org';
/** A write token of its own for the outside CI, the one a repository can name as its evidence reporter. */
const OUTSIDE_CI = 'outside-ci-secret-0123456789ab';
const FILE = 'src/cart/totals.test.ts';

/**
 * The check of every run. `flaky-<name>.flag` in the tested tree: the report says test <name> failed
 * then passed on a retry (`<flakyFailure>`) and a new test failed; `fails-<name>.flag`: test <name>
 * failed and nothing else. Otherwise every test passes.
 */
const CHECK = `#!/bin/sh
ok() { printf '<testcase name="%s" classname="cart" file="${FILE}"/>' "$1"; }
flaky() { printf '<testcase name="%s" classname="cart" file="${FILE}"><flakyFailure message="first try"/></testcase>' "$1"; }
failed() { printf '<testcase name="%s" classname="cart" file="${FILE}"><failure message="boom">x</failure></testcase>' "$1"; }
cases="$(ok 'adds items')"; code=0
for f in flaky-*.flag; do [ -f "$f" ] || continue; n=\${f#flaky-}; n=\${n%.flag}; cases="$cases$(flaky "$n")$(failed "brand new $n")"; code=1; done
for f in fails-*.flag; do [ -f "$f" ] || continue; n=\${f#fails-}; n=\${n%.flag}; cases="$cases$(failed "$n")"; code=1; done
printf '<?xml version="1.0" encoding="UTF-8"?>\\n<testsuite name="cart">%s</testsuite>\\n' "$cases" > junit.xml
exit $code
`;

let world: World;
let server: RunningProcess;
let ci: ReturnType<typeof client>;
let th: ReturnType<typeof testHealthClient>;

const eventually = async <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 300_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
};

const settled = (n: number): Promise<string> =>
  eventually(async () => {
    const state = (await ci.getPr(n)).body.state as string;
    return ['merged', 'failed', 'cancelled'].includes(state) ? state : undefined;
  }, `PR #${n} to settle`);

/** Opens PR `n` whose branch adds the marker `flag` and a file of its own, and submits it. */
const submitMarked = async (n: number, flag: string): Promise<void> => {
  await commitOnBranch(world.gitRoot, REPO, { branch: `marked-${n}`, files: { [flag]: 'x\n', [`m${n}.txt`]: `${n}\n` } });
  await openPr(world.gitRoot, { repo: REPO, number: n, head: `marked-${n}`, base: 'main' });
  expect((await ci.submit(n)).status).toBe(200);
};

/** Whether main's tree holds `file`: what a merged PR leaves there. */
const onMain = (file: string): Promise<boolean> =>
  new Promise((resolve) =>
    execFile('git', ['--git-dir', gitDirOf(world.gitRoot, REPO), 'cat-file', '-e', `main:${file}`], (err) => resolve(err === null)),
  );

const quarantinedNames = async (): Promise<string[]> =>
  ((await th.quarantined({ page_size: 100 })).body.quarantined_tests as { name: string }[]).map((t) => t.name);

beforeAll(async () => {
  world = await makeWorld();
  await commitOnBranch(world.gitRoot, REPO, {
    branch: 'main',
    files: {
      'check.sh': CHECK,
      '.railyard.yml': 'ci:\n  unit: "sh ./check.sh"\nreports:\n  - junit.xml\nmerge:\n  required_statuses: [unit]\n',
    },
    message: 'A check whose report the tested tree decides',
  });
  server = await startProcess('apps/server/src/main.ts', {
    ...world.env,
    RAILYARD_ENGINE: 'on',
    RAILYARD_ENGINE_TICK_MS: '200',
    RAILYARD_ORG_SLUG: ORG,
    RAILYARD_API_TOKENS: `${TOKEN_ENV},outside-ci:${OUTSIDE_CI}:write`,
  });
  ci = client(server.url, TOKENS.write);
  th = testHealthClient(server.url, TOKENS.write, ORG);
  const admin = client(server.url, TOKENS.admin);
  expect((await admin.createQueue({ concurrency: 2, canOptimisticallyMerge: false, pendingFailureDepth: 0, flakeRetries: 1 })).status).toBe(
    200,
  );
});

afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('a pull request cannot quarantine the test it fails (issue 25)', () => {
  it('when a failed PR’s report marks test X flaky, then X is not quarantined, and a later PR failing only X fails and stays off main while a good PR merges', async () => {
    await submitMarked(61, 'flaky-checkout works.flag');
    expect(await settled(61)).toBe('failed');
    const unhealthy = await th.unhealthy('FLAKY', { page_size: 100 });
    const x = (unhealthy.body.tests as { name: string; quarantined: boolean; status: { reason: string } }[]).find(
      (t) => t.name === 'checkout works',
    );
    expect(x).toMatchObject({ quarantined: false, status: { reason: expect.stringContaining('without the runs of PR #61') } });
    expect(await quarantinedNames()).not.toContain('checkout works');

    await submitMarked(62, 'fails-checkout works.flag');
    expect(await settled(62)).toBe('failed');
    expect(await onMain('m62.txt')).toBe(false);

    await world.openFeaturePr(63);
    expect((await ci.submit(63)).status).toBe(200);
    expect(await settled(63)).toBe('merged');
  });

  it('when a PR’s own branch upload (write token) marks test Y flaky, then its queue run failing only Y fails', async () => {
    const sha = await commitOnBranch(world.gitRoot, REPO, {
      branch: 'marked-64',
      files: { 'fails-price rounds.flag': 'x\n', 'm64.txt': '64\n' },
    });
    const uploaded = await th.uploadCases(
      [{ name: 'price rounds', outcome: 'flaky', file: FILE, classname: 'cart' }],
      {
        sha,
        branch: 'marked-64',
        pr: 64,
      },
      'cart',
    );
    expect(uploaded.status).toBe(200);
    expect(await quarantinedNames()).not.toContain('price rounds');

    await openPr(world.gitRoot, { repo: REPO, number: 64, head: 'marked-64', base: 'main' });
    expect((await ci.submit(64)).status).toBe(200);
    expect(await settled(64)).toBe('failed');
    expect(await onMain('m64.txt')).toBe(false);
  });

  it('when two other pull requests show test Z flaky, then Z is quarantined and a PR failing only Z merges', async () => {
    for (const pr of [71, 72]) {
      const sha = `${pr}`.repeat(20).slice(0, 40);
      const up = await th.uploadCases(
        [{ name: 'stock counts', outcome: 'flaky', file: FILE, classname: 'cart' }],
        {
          sha,
          branch: `feature-${pr}`,
          pr,
        },
        'cart',
      );
      expect(up.status).toBe(200);
    }
    expect(await quarantinedNames()).toContain('stock counts');

    await submitMarked(73, 'fails-stock counts.flag');
    expect(await settled(73)).toBe('merged');
    expect(await onMain('m73.txt')).toBe(true);
  });

  it('when the repository names its evidence reporters, then the write token’s uploads for two PRs no longer quarantine Z, and a PR failing only Z fails; the named CI’s uploads still count', async () => {
    const admin = testHealthClient(server.url, TOKENS.admin, ORG);
    const set = await admin.raw('/flaky-tests/set-evidence-reporters').send({ repo: REPO, reporters: ['outside-ci'] });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ reporters: ['outside-ci'] });
    expect(await quarantinedNames()).not.toContain('stock counts');
    const flaky = (await th.unhealthy('FLAKY', { page_size: 100 })).body.tests as {
      name: string;
      quarantined: boolean;
      status: { reason: string };
    }[];
    expect(flaky.find((t) => t.name === 'stock counts')).toMatchObject({
      quarantined: false,
      status: { reason: expect.stringContaining('without the uploads of token "ci"') },
    });

    await submitMarked(74, 'fails-stock counts.flag');
    expect(await settled(74)).toBe('failed');
    expect(await onMain('m74.txt')).toBe(false);

    const outside = testHealthClient(server.url, OUTSIDE_CI, ORG);
    for (const pr of [75, 76]) {
      const up = await outside.uploadCases(
        [{ name: 'tax applies', outcome: 'flaky', file: FILE, classname: 'cart' }],
        { sha: `${pr}`.repeat(20).slice(0, 40), branch: `feature-${pr}`, pr },
        'cart',
      );
      expect(up.status).toBe(200);
    }
    expect(await quarantinedNames()).toContain('tax applies');
    expect((await admin.raw('/flaky-tests/get-evidence-reporters').send({ repo: REPO })).body).toEqual({ reporters: ['outside-ci'] });
  });
});

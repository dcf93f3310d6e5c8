import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { client } from './support/client';
import { configureCi, eventually, NO_FAIL_CHECK, openPrWithFile, sleep, startEmbedded } from './support/engine-world';
import { makeWorld, TOKENS } from './support/world';
import { RAILYARD_BIN, ROOT, startProcess, type RunningProcess } from './support/processes';

jest.setTimeout(300_000);

const run = promisify(execFile);

/** The first ```sh block after `heading` in a Markdown file of the repository, as written. */
const shellBlockAfter = (file: string, heading: string): string => {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const from = text.indexOf(heading);
  if (from < 0) throw new Error(`${file} has no heading ${heading}`);
  const block = /```sh\n([\s\S]*?)\n```/.exec(text.slice(from));
  if (!block?.[1]) throw new Error(`${file} has no sh block after ${heading}`);
  return block[1];
};

/** Replaces every `from` with `to`, and fails when the recipe no longer says `from` (the test would silently stop testing it). */
const swap = (script: string, from: string, to: string): string => {
  if (!script.includes(from)) throw new Error(`the recipe no longer contains ${JSON.stringify(from)}`);
  return script.split(from).join(to);
};

const bash = async (script: string, cwd: string): Promise<string> => {
  const { stdout } = await run('bash', ['-e', '-c', script], {
    cwd,
    env: {
      ...process.env,
      // A fresh machine's git has no identity; the recipe's commits need one.
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.test',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.test',
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
};

let work: string;
let server: RunningProcess | undefined;

beforeAll(async () => {
  work = await makeTempDir('railyard-recipes-');
});

afterAll(async () => {
  await server?.stop();
  await removeTempDir(work);
});

describe("the README's first steps, run as written against a real server", () => {
  it('when the first-steps block runs in a fresh directory beside a started server, then the PR merges into main', async () => {
    // `npm start` in the checkout: data in ./data, the admin token written to data/api-token.
    const data = path.join(work, 'data');
    mkdirSync(data, { recursive: true });
    server = await startProcess('apps/server/src/main.ts', { RAILYARD_DATA_DIR: data, RAILYARD_API_TOKENS: '' });

    // What differs from a reader's machine: the port the test server got, a private scratch clone,
    // and the CLI run from this checkout (the recipe's `npm run railyard --`, from another directory).
    let script = shellBlockAfter('README.md', '## First steps');
    script = swap(script, 'localhost:8080', `127.0.0.1:${server.port}`);
    script = swap(script, '/tmp/widgets', path.join(work, 'widgets'));
    script = swap(script, 'npm run railyard --', `node ${RAILYARD_BIN}`);
    const [setup, check] = script.split(/^# 4\..*$/m);
    if (!setup || !check) throw new Error('the first steps no longer have a step 4');

    // Step 4 is looked at again until it shows the merge, with the variables the steps before it set.
    const variables = setup.split('\n').filter((line) => /^[A-Z_]+=/.test(line));
    const again = [...variables, check].join('\n');

    const out = await bash(setup, work);
    expect(out).toContain('"number":1');

    const merged = await eventually(
      'the first steps PR to merge',
      async () => {
        // A reader looks again a moment later; so does the test, to keep the machine quiet.
        await sleep(1000);
        const now = await bash(again, work);
        return now.includes('"state":"merged"') ? now : undefined;
      },
      240_000,
    );
    expect(merged).toContain('Say hello');
  });
});

describe('the CI recipe of docs/ci-integration.md, run as written against a real server', () => {
  it('when a job runs "Getting the CLI in a job" in an empty directory, then it fetches the CLI, submits, waits and exits 0 on the merge', async () => {
    // The compiled server serves the bundle its build made beside it (dist/cli/railyard.cjs).
    const world = await makeWorld();
    await configureCi(world, { test: NO_FAIL_CHECK });
    const embedded = await startEmbedded(world);
    try {
      expect((await client(embedded.url, TOKENS.admin).createQueue()).status).toBe(200);
      await openPrWithFile(world, 123, 'from a CI job\n');
      // The recipe's repository is on GitHub; the test's is the same PR number on the local host.
      const script = swap(
        shellBlockAfter('docs/ci-integration.md', '## Getting the CLI in a job'),
        'github.com/acme/widgets',
        'git.local/acme/widgets',
      );
      const job = path.join(work, 'job');
      mkdirSync(job);
      const { stdout } = await run('bash', ['-e', '-c', script], {
        cwd: job,
        // A CI job's environment: the server and a write token, nothing of this checkout.
        env: { PATH: process.env.PATH, RAILYARD_URL: embedded.url, RAILYARD_TOKEN: TOKENS.write },
      });
      expect(stdout).toContain('submitted #123 to git.local/acme/widgets main');
      expect(stdout.trim().split('\n').pop()).toMatch(/^#123 merged/);
    } finally {
      await embedded.stop();
      await world.cleanup();
    }
  });
});

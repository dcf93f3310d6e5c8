import { execFileSync } from 'node:child_process';
import { constants, promises as fs, openSync, closeSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import request from 'supertest';
import { OPERATIONS } from '@railyard/api';
import { formatRepo, isObjectId, isValidBranchName, repoRefProblems, repoSlug, type RepoRef } from '@railyard/domain';
import { commitOnBranch, createRepoWithCommits, makeTempDir, openPr, removeTempDir } from '@railyard/testkit';
import { REPO } from './support/client';
import { startProcess, type RunningProcess } from './support/processes';
import { TOKEN_ENV, TOKENS } from './support/world';

jest.setTimeout(240_000);

/**
 * The layout: <base>/data is the data dir (git root <base>/data/git); <base>/sentinel is a tree no
 * request may read or change, holding a named pipe (opening it for reading blocks, which froze the
 * whole server before) and files whose access time shows any read. `../` × 7 from a repository's
 * refs/heads reaches <base>, so the generated names below aim there.
 */
let base: string;
let server: RunningProcess;
const SENTINEL = 'sentinel';
const UP_TO_BASE = 7;

interface Entry {
  type: string;
  size: number;
  mtimeMs: number;
  atimeMs: number;
}

/** Every entry under <base> except the data dir, with the times that change when it is read or written. */
const snapshot = async (): Promise<Record<string, Entry>> => {
  const out: Record<string, Entry> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const name of await fs.readdir(dir)) {
      const full = path.join(dir, name);
      const rel = path.relative(base, full);
      if (rel === 'data') continue;
      const st = await fs.lstat(full);
      out[rel] = {
        type: st.isFIFO() ? 'fifo' : st.isDirectory() ? 'dir' : 'file',
        size: st.size,
        mtimeMs: st.mtimeMs,
        atimeMs: st.atimeMs,
      };
      if (st.isDirectory()) await walk(full);
    }
  };
  await walk(base);
  return out;
};

/** A named pipe has a reader exactly when a non-blocking open for writing succeeds. */
const pipeHasReader = (fifo: string): boolean => {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') return false;
    throw err;
  }
};

const makeSentinel = async (): Promise<void> => {
  const root = path.join(base, SENTINEL);
  await fs.mkdir(path.join(root, 'refs', 'heads'), { recursive: true });
  execFileSync('mkfifo', [path.join(root, 'fifo')]);
  execFileSync('mkfifo', [path.join(root, 'refs', 'heads', 'main')]);
  await fs.writeFile(path.join(root, 'file'), 'a'.repeat(40) + '\n');
  await fs.writeFile(path.join(base, 'beside-data'), 'ref: refs/heads/main\n');
  // relatime updates the access time of an entry read after its last change: set it back, and any read shows.
  const past = new Date('2020-01-01T00:00:00Z');
  for (const p of [
    root,
    path.join(root, 'refs'),
    path.join(root, 'refs', 'heads'),
    path.join(root, 'file'),
    path.join(base, 'beside-data'),
  ])
    await fs.utimes(p, past, new Date());
};

beforeAll(async () => {
  base = await makeTempDir('railyard-ids-');
  const dataDir = path.join(base, 'data');
  const gitRoot = path.join(dataDir, 'git');
  await createRepoWithCommits(gitRoot, REPO, { files: { 'README.md': '# widgets\n' } });
  await commitOnBranch(gitRoot, REPO, { branch: 'feature-1', files: { 'f1.txt': '1\n' } });
  await openPr(gitRoot, { repo: REPO, number: 1, head: 'feature-1' });
  await makeSentinel();
  // The engine and the local CI run too: they are what turns a queue's names into paths.
  server = await startProcess('apps/server/src/main.ts', {
    RAILYARD_DATA_DIR: dataDir,
    RAILYARD_API_TOKENS: TOKEN_ENV,
    RAILYARD_ENGINE: 'on',
  });
});
afterAll(async () => {
  // A server stuck in a read of the pipe never stops on SIGTERM: do not leave it behind.
  if (server) {
    const stuck = setTimeout(() => void server.kill9(), 10_000);
    await server.stop();
    clearTimeout(stuck);
  }
  if (base) await removeTempDir(base);
});

const traversal = fc
  .tuple(
    fc.integer({ min: 0, max: UP_TO_BASE + 2 }),
    fc.constantFrom(`${SENTINEL}/fifo`, `${SENTINEL}/file`, `${SENTINEL}/refs/heads/main`, 'beside-data', SENTINEL, ''),
    fc.constantFrom('', '/', './'),
  )
  .map(([ups, target, lead]) => lead + '../'.repeat(ups) + target);
const tricky = fc.string({
  unit: fc.oneof(
    fc.constantFrom('/', '.', '..', '-', '@', '@{', '~', '^', ':', '\\', '%2e', '%2F', ' ', '\0', '\n', '\u202e', '\uD800', 'é', 'a', '1'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 12,
});
const segment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(REPO.host, REPO.owner, REPO.name) },
  { weight: 2, arbitrary: fc.constantFrom('..', '.', '-x', '--upload-pack=x', '', '.git', 'a b', 'ok-name', SENTINEL, '%2e%2e') },
  { weight: 2, arbitrary: traversal },
  { weight: 2, arbitrary: tricky },
);
const branch = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('main', 'release/2.0@rc', 'feature-1', '-x', '@', 'HEAD', 'a.lock', 'a..b', '/main', 'main/') },
  { weight: 4, arbitrary: traversal },
  { weight: 2, arbitrary: tricky },
);
const sha = fc.oneof(
  fc.constantFrom('a'.repeat(40), 'A'.repeat(40), '0'.repeat(64)),
  traversal,
  fc.string({ unit: fc.constantFrom('a', 'f', '0', '9', 'g', '/', '.'), minLength: 38, maxLength: 42 }),
);
// The real repository half of the time, so a branch gets as far as the engine; generated parts otherwise.
const repo = fc.oneof(fc.constant(REPO), fc.record({ host: segment, owner: segment, name: segment }));
const ids = fc.record({ repo, branch, sha });
type Ids = { repo: RepoRef; branch: string; sha: string };

/** Percent-encodes; a lone surrogate, which has no UTF-8 form, goes as the invalid bytes it would be. */
const enc = (s: string): string => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};
const b64 = Buffer.from('<testsuite name="s"><testcase name="t"/></testsuite>').toString('base64');
const post = (p: string, token: string, body: object) => request(server.url).post(p).set('x-api-token', token).send(body).timeout(10_000);
const get = (p: string, token: string) => request(server.url).get(p).set('x-api-token', token).timeout(10_000);

/** An operation's own request example with the generated identifiers wherever it names a repository, a branch or a commit. */
const withIds = (example: unknown, i: Ids): unknown => {
  if (Array.isArray(example)) return example.map((e) => withIds(e, i));
  if (example === null || typeof example !== 'object') return example;
  return Object.fromEntries(
    Object.entries(example).map(([key, value]) => {
      if (key === 'repo') return [key, typeof value === 'string' ? formatRepo(i.repo) : i.repo];
      if (key === 'targetBranch' || key === 'branch') return [key, i.branch];
      if (key === 'sha') return [key, i.sha];
      return [key, withIds(value, i)];
    }),
  );
};

/**
 * Every endpoint that takes a repository, a branch or a SHA, built from one set of generated identifiers:
 * each JSON operation of the table whose example names a `repo`, sent as its example, and the few that
 * take them in the path or the query.
 */
const ENDPOINTS: Record<string, (i: Ids) => request.Test> = {
  ...Object.fromEntries(
    OPERATIONS.flatMap((op) => {
      const example = op.request?.example;
      if (op.method !== 'post' || op.scope === 'public' || typeof example !== 'object' || example === null || !('repo' in example))
        return [];
      return [[op.operationId, (i: Ids) => post(op.path, TOKENS[op.scope as keyof typeof TOKENS], withIds(example, i) as object)]];
    }),
  ),
  uploadXml: (i) =>
    request(server.url)
      .post(`/v1/uploadTestResults?repo=${enc(formatRepo(i.repo))}&branch=${enc(i.branch)}&sha=${enc(i.sha)}`)
      .set('x-api-token', TOKENS.write)
      .set('content-type', 'application/xml')
      .send(Buffer.from(b64, 'base64'))
      .timeout(10_000),
  metrics: (i) => get(`/v1/getMergeQueueMetrics?repo=${enc(repoSlug(i.repo))}&repoHost=${enc(i.repo.host)}`, TOKENS.read),
  pullPage: (i) => get(`/repos/${enc(i.repo.host)}/${enc(i.repo.owner)}/${enc(i.repo.name)}/pulls/1`, TOKENS.read),
  ciLog: (i) => get(`/ci/logs/${enc(i.branch)}/${enc(i.repo.name)}`, TOKENS.read),
};

const assertUntouched = async (before: Record<string, Entry>) => {
  expect(pipeHasReader(path.join(base, SENTINEL, 'fifo'))).toBe(false);
  expect(pipeHasReader(path.join(base, SENTINEL, 'refs', 'heads', 'main'))).toBe(false);
  expect(await snapshot()).toEqual(before);
  expect((await request(server.url).get('/healthz').timeout(5_000)).status).toBe(200);
};

describe('identifiers at the API boundary', () => {
  it('when createQueue is given names the git host cannot serve, then 422 names each field, no queue is made and the server keeps answering', async () => {
    await snapshot();
    const before = await snapshot();
    const cases: [{ repo: RepoRef; targetBranch: string }, string[]][] = [
      [{ repo: { ...REPO, name: '..' }, targetBranch: 'main' }, ['repo.name']],
      [{ repo: { ...REPO, owner: '-x' }, targetBranch: 'main' }, ['repo.owner']],
      [{ repo: REPO, targetBranch: `${'../'.repeat(UP_TO_BASE)}${SENTINEL}/fifo` }, ['targetBranch']],
      [{ repo: REPO, targetBranch: `${'../'.repeat(UP_TO_BASE)}${SENTINEL}/file` }, ['targetBranch']],
      [{ repo: { host: '.', owner: REPO.owner, name: REPO.name }, targetBranch: 'a.lock' }, ['repo.host', 'targetBranch']],
    ];
    const answers = [];
    for (const [body] of cases) {
      answers.push(await post('/v1/createQueue', TOKENS.admin, body));
      // A PR in the queue is what makes the engine read the target branch.
      await post('/v1/submitPullRequest', TOKENS.write, { ...body, pr: { number: 1 } });
    }
    await new Promise((r) => setTimeout(r, 3_000));
    await assertUntouched(before);
    // Trunk's schema takes any string for these: the names are refused with 422, never 400 (docs/api.md, "Errors").
    answers.forEach((res, i) => {
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.fields.map((f: { field: string }) => f.field)).toEqual(cases[i]?.[1]);
    });
    const metrics = await get('/v1/getMergeQueueMetrics', TOKENS.read);
    expect(metrics.text).not.toMatch(/^mq_depth_current\{/m);
  });

  it('when any endpoint gets generated identifiers, then it answers 2xx or a JSON 4xx, createQueue refuses the invalid ones, and nothing outside the data dir is touched', async () => {
    // The first walk reads the directories (setting their access times); the second is the baseline.
    await snapshot();
    const before = await snapshot();
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(ENDPOINTS)), ids, async (endpoint, i) => {
        const res = await (ENDPOINTS[endpoint] as (i: Ids) => request.Test)(i);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400)
          expect(res.body.error).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
        if (endpoint === 'createQueue') {
          const valid = repoRefProblems(i.repo).length === 0 && isValidBranchName(i.branch);
          expect(valid ? [200, 409] : [422]).toContain(res.status);
          // A queue that was made gets a PR, so the engine works on it during the run.
          if (res.status === 200) expect((await ENDPOINTS.submitPullRequest?.(i))?.status).toBeLessThan(500);
        }
        if (endpoint === 'setCommitStatus' && !isObjectId(i.sha.toLowerCase())) expect(res.status).toBe(400);
        if (++runs % 25 === 0) await assertUntouched(before);
      }),
      { numRuns: 500 },
    );
    // The engine ticks every second: give it time to act on every queue the run made.
    await new Promise((r) => setTimeout(r, 3_000));
    await assertUntouched(before);
  });
});

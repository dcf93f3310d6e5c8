import express from 'express';
import request from 'supertest';
import { parseTokenList, TokenRegistry } from '@railyard/auth';
import type { RepoRef } from '@railyard/domain';
import type { MemoryEventStore } from '@railyard/eventstore';
import { createLogger } from '@railyard/observability';
import { repoIdOf } from '@railyard/testhealth';
import { repoBed } from '@railyard/testkit';
import { errorHandler } from '../../http/errors';
import type { TestHealth } from '../create';
import { inMemoryTestHealth } from '../testing/in-memory';

// uploadTestResults over HTTP, parsed by the real worker pool: the caps hold for an upload as a whole.

jest.setTimeout(60_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const WRITE = 'write-secret-0123456789abcdef';
/** The documented cap (docs/test-health.md), written out so the test does not follow the code it checks. */
const MAX_UPLOAD_CASES = 100_000;
const logger = createLogger('test', 'error');
const bed = repoBed(repo, { gitSubdir: 'git', per: 'file' });
let events: MemoryEventStore;
let testHealth: TestHealth;
let app: express.Express;

/** A report of `count` passing cases, named from `from` on, in base64 as the JSON form carries it. */
const report = (count: number, from: number) => ({
  name: `report-${from}.xml`,
  contentBase64: Buffer.from(
    `<testsuite name="s">${Array.from({ length: count }, (_, i) => `<testcase name="t${from + i}"/>`).join('')}</testsuite>`,
  ).toString('base64'),
});
const upload = (files: ReturnType<typeof report>[]) =>
  request(app)
    .post('/v1/uploadTestResults')
    .set('x-api-token', WRITE)
    .send({ repo: 'git.test/acme/widgets', branch: 'main', sha: 'a'.repeat(40), files });

describe('POST /v1/uploadTestResults', () => {
  beforeAll(() => {
    ({ events, testHealth } = inMemoryTestHealth({
      tokens: new TokenRegistry(parseTokenList(`ci:${WRITE}:write`)),
      logger,
      gitRoot: bed.root,
      readYourWritesTimeoutMs: 0,
    }));
    app = express();
    app.use(testHealth.router, errorHandler(logger));
  });
  afterAll(() => testHealth.close());

  it('when the reports of one upload hold more cases together than the cap, though each is under it, then 400 TOO_MANY_CASES and nothing is recorded', async () => {
    const half = MAX_UPLOAD_CASES / 2 + 1;
    const res = await upload([report(half, 0), report(half, half)]);

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 'TOO_MANY_CASES',
        message: expect.stringContaining(`more than ${MAX_UPLOAD_CASES} test cases in all its files together`),
      },
    });
    expect(await events.readStream(`tests-${repoIdOf(repo)}`)).toEqual([]);
  });

  it('when an upload stays under the cap, then its files are recorded together', async () => {
    const res = await upload([report(3, 0), report(2, 3)]);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ files: 2, caseCount: 5 });
  });
});

import fc from 'fast-check';
import request from 'supertest';
import { OPERATIONS } from '@railyard/api';
import { REPO } from './support/client';
import { startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(180_000);

let world: World;
let server: RunningProcess;

beforeAll(async () => {
  world = await makeWorld();
  await world.openFeaturePr(1);
  server = await startProcess('apps/server/src/main.ts', world.env);
  await request(server.url).post('/v1/createQueue').set('x-api-token', TOKENS.admin).send({ repo: REPO, targetBranch: 'main' });
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

const POST_PATHS = OPERATIONS.filter((op) => op.method === 'post').map((op) => op.path);

/** Bodies near the valid shape are the ones that reach deep code; pure noise only tests the parser. */
const nearValid = fc.record(
  {
    repo: fc.oneof(
      fc.constant(REPO),
      fc.record({ host: fc.anything(), owner: fc.string(), name: fc.string({ unit: 'binary' }) }),
      fc.anything(),
    ),
    targetBranch: fc.oneof(fc.constant('main'), fc.string({ unit: 'binary' }), fc.anything()),
    pr: fc.oneof(fc.record({ number: fc.oneof(fc.integer(), fc.string(), fc.double(), fc.constant('1')) }), fc.anything()),
    priority: fc.oneof(fc.integer({ min: -5, max: 300 }), fc.constantFrom('urgent', 'HIGH', 'x', ''), fc.anything()),
    impactedTargets: fc.oneof(fc.array(fc.string()), fc.constant('ALL'), fc.anything()),
    concurrency: fc.oneof(fc.integer(), fc.double(), fc.anything()),
    mode: fc.oneof(fc.constantFrom('single', 'PARALLEL', 'switching'), fc.anything()),
    state: fc.oneof(fc.constantFrom('running', 'paused', 'draining', 'switching_modes'), fc.anything()),
    requiredStatuses: fc.oneof(fc.array(fc.string({ unit: 'binary' })), fc.anything()),
  },
  { requiredKeys: [] },
);

describe('malformed input never breaks the server', () => {
  it('when any body is posted to any endpoint, then the answer is never a 5xx and always a JSON error or success', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POST_PATHS), fc.oneof(nearValid, fc.jsonValue()), async (path, body) => {
        const res = await request(server.url)
          .post(path)
          .set('x-api-token', TOKENS.admin)
          .set('content-type', 'application/json')
          .send(JSON.stringify(body));
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400)
          expect(res.body.error).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
      }),
      { numRuns: 400 },
    );
    expect((await request(server.url).get('/healthz')).status).toBe(200);
  });
});

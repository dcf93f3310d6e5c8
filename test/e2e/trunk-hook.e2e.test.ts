import express from 'express';
import request from 'supertest';

/**
 * The hook every e2e suite runs under (support/trunk-hook.ts, jest.config.js): whichever helper sends
 * a request, an answer from one of Trunk's paths that breaks Trunk's contract fails the call.
 */

const app = express();
app.use(express.json());
app.post('/v1/getQueue', (_req, res) => {
  res.json({ state: 'running', enqueuedPullRequests: [{ number: 1 }] });
});
app.post('/v1/cancelPullRequest', (_req, res) => {
  res.status(400).json({ error: { code: 'INVALID_REQUEST' } });
});
app.post('/v1/getQueueHistory', (_req, res) => {
  res.status(400).json({ error: { code: 'INVALID_REQUEST' } });
});

const key = { repo: { host: 'git.local', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };

describe('every e2e answer held against Trunk’s contract', () => {
  it('when a Trunk path answers 200 with a body Trunk’s schema refuses, then the call fails naming the operation', async () => {
    await expect(request(app).post('/v1/getQueue').send(key)).rejects.toThrow(/Trunk's getQueue schema refuses the answer/);
  });

  it('when a request Trunk’s schema accepts is answered 400, then the call fails', async () => {
    await expect(
      request(app)
        .post('/v1/cancelPullRequest')
        .send({ ...key, pr: { number: 1 } }),
    ).rejects.toThrow(/schema accepts this request, and Railyard answered 400/);
  });

  it('when a request Trunk’s schema refuses is a 400, or the path is Railyard’s own, then the call is left alone', async () => {
    expect(
      (
        await request(app)
          .post('/v1/cancelPullRequest')
          .send({ ...key })
      ).status,
    ).toBe(400);
    expect((await request(app).post('/v1/getQueueHistory').send(key)).status).toBe(400);
  });
});

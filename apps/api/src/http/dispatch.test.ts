import express, { Router } from 'express';
import request from 'supertest';
import { dispatchByPath } from './dispatch';

const appWith = (...routers: Router[]) => {
  const app = express();
  app.use(dispatchByPath(routers));
  app.use((_req, res) => {
    res.status(404).json({ fell: 'through' });
  });
  return app;
};

describe('dispatchByPath', () => {
  const a = Router().post('/a', (_req, res) => void res.json({ by: 'a' }));
  const b = Router().post('/b', (_req, res) => void res.json({ by: 'b' }));
  const withParam = Router().get('/logs/:id', (req, res) => void res.json({ by: 'param', id: req.params.id }));
  const withMiddleware = Router().use((_req, res, next) => {
    res.setHeader('x-mw', '1');
    next();
  });
  withMiddleware.post('/c', (_req, res) => void res.json({ by: 'c' }));

  it('when a static path is asked for, then the router that declares it answers', async () => {
    const app = appWith(a, b, withParam, withMiddleware);
    expect((await request(app).post('/b')).body).toEqual({ by: 'b' });
    expect((await request(app).post('/a')).body).toEqual({ by: 'a' });
  });

  it('when a router has parameters or its own middleware, then it still works through the ordinary chain', async () => {
    const app = appWith(a, withParam, withMiddleware);
    expect((await request(app).get('/logs/42')).body).toEqual({ by: 'param', id: '42' });
    const c = await request(app).post('/c');
    expect(c.body).toEqual({ by: 'c' });
    expect(c.headers['x-mw']).toBe('1');
  });

  it('when the handler fails, then the error reaches the error handler, not the next router', async () => {
    const failing = Router().post('/f', () => {
      throw new Error('boom');
    });
    const app = express();
    app.use(dispatchByPath([failing, Router().post('/f', (_req, res) => void res.json({ wrong: 'router' }))]));
    app.use(
      ((err, _req, res, _next) => void res.status(418).json({ error: String((err as Error).message) })) as express.ErrorRequestHandler,
    );
    const res = await request(app).post('/f');
    expect(res.status).toBe(418);
    expect(res.body).toEqual({ error: 'boom' });
  });

  it('when the path differs in case or ends in one slash, then the router that declares it answers, as express matches routes', async () => {
    const app = appWith(a, b);
    expect((await request(app).post('/B')).body).toEqual({ by: 'b' });
    expect((await request(app).post('/a/')).body).toEqual({ by: 'a' });
    expect((await request(app).post('/a//')).body).toEqual({ fell: 'through' });
  });

  it('when the path is known but the method is not, or the path is unknown, then the request falls through', async () => {
    const app = appWith(a, b);
    expect((await request(app).get('/a')).body).toEqual({ fell: 'through' });
    expect((await request(app).post('/nowhere')).body).toEqual({ fell: 'through' });
  });
});

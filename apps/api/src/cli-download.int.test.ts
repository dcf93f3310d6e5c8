import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@railyard/observability';
import express from 'express';
import request from 'supertest';
import { cliDownloadRouter } from './cli-download';
import { errorHandler, notFoundHandler } from './http/errors';

const appWith = (candidates: string[]) =>
  express()
    .use(cliDownloadRouter(candidates))
    .use(notFoundHandler)
    .use(errorHandler(createLogger('test')));

describe('GET /cli/railyard.cjs', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'railyard-cli-dl-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when the build made the bundle, then it is served as JavaScript without a token', async () => {
    writeFileSync(path.join(dir, 'railyard.cjs'), '#!/usr/bin/env node\nconsole.log(1);\n');
    const res = await request(appWith([path.join(dir, 'missing.cjs'), path.join(dir, 'railyard.cjs')])).get('/cli/railyard.cjs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.text).toContain('console.log(1)');
  });

  it('when no bundle was built, then a 404 JSON error says how to build one', async () => {
    const res = await request(appWith([path.join(dir, 'none.cjs')])).get('/cli/railyard.cjs');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'CLI_NOT_BUILT' });
    expect(res.body.error.message).toMatch(/npm run build/);
  });
});

import { statSync } from 'node:fs';
import path from 'node:path';
import { client } from './support/client';
import { startProcess } from './support/processes';
import { makeWorld, type World } from './support/world';

jest.setTimeout(60_000);

let world: World;
beforeAll(async () => {
  world = await makeWorld();
});
afterAll(() => world?.cleanup());

describe('first start without configured tokens', () => {
  it('when no tokens are configured, then one admin token is created with mode 0600, printed once, and never logged', async () => {
    const env = { RAILYARD_DATA_DIR: world.dataDir, RAILYARD_API_TOKENS: '' };
    const first = await startProcess('apps/server/src/main.ts', env);
    const secret = /x-api-token: (\S+)/.exec(first.output())?.[1];
    expect(secret).toBeDefined();
    const file = path.join(world.dataDir, 'api-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await client(first.url, secret!).createQueue()).status).toBe(200);
    const jsonLines = first
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(jsonLines.join('\n')).not.toContain(secret);
    await first.stop();

    const second = await startProcess('apps/server/src/main.ts', env);
    expect(second.output()).not.toContain(secret);
    expect((await client(second.url, secret!).getQueue()).status).toBe(200);
    await second.stop();
  });

  it('when RAILYARD_API_TOKENS is malformed, then the server refuses to start', async () => {
    await expect(
      startProcess(
        'apps/server/src/main.ts',
        { RAILYARD_DATA_DIR: world.dataDir, RAILYARD_API_TOKENS: 'ci:short:write' },
        { timeoutMs: 20_000 },
      ),
    ).rejects.toThrow(/exited with 1/);
  });
});

describe('rate limiting', () => {
  it('when RAILYARD_RATE_LIMIT_PER_SECOND is set, then a token over it gets 429 with Retry-After', async () => {
    const { TOKEN_ENV, TOKENS } = await import('./support/world');
    const server = await startProcess('apps/server/src/main.ts', {
      RAILYARD_DATA_DIR: world.dataDir,
      RAILYARD_API_TOKENS: TOKEN_ENV,
      RAILYARD_RATE_LIMIT_PER_SECOND: '3',
    });
    try {
      const admin = client(server.url, TOKENS.admin);
      const answers = await Promise.all(Array.from({ length: 10 }, () => admin.getQueue('none')));
      const limited = answers.filter((a) => a.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      expect(limited[0]?.headers['retry-after']).toMatch(/^\d+$/);
      expect((await client(server.url, TOKENS.read).getQueue('none')).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});

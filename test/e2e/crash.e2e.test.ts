import { client } from './support/client';
import { startProcess, type RunningProcess } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

jest.setTimeout(120_000);

let world: World;
let server: RunningProcess | undefined;

beforeAll(async () => {
  world = await makeWorld();
  for (let n = 1; n <= 60; n++) await world.openFeaturePr(n);
  await world.openFeaturePr(100);
});
afterAll(async () => {
  await server?.stop();
  await world?.cleanup();
});

describe('durability and concurrency of submissions', () => {
  it('when the server is killed with -9 in the middle of a burst, then every submission that got a 200 is there after restart', async () => {
    server = await startProcess('apps/server/src/main.ts', world.env);
    const ci = client(server.url, TOKENS.write);
    expect((await client(server.url, TOKENS.admin).createQueue()).status).toBe(200);

    const acked = new Map<number, string>();
    let next = 1;
    let killed: Promise<void> | undefined;
    const worker = async () => {
      while (next <= 60) {
        const n = next++;
        try {
          const res = await ci.submit(n);
          if (res.status === 200) acked.set(n, res.body.id as string);
        } catch {
          // The connection died with the process: this submission was never acknowledged.
        }
        if (acked.size >= 20 && !killed) killed = server!.kill9();
      }
    };
    const oldUrl = server.url;
    await Promise.all(Array.from({ length: 8 }, worker));
    await killed;
    expect(acked.size).toBeGreaterThanOrEqual(20);
    // The kill must have taken the server itself down, not a wrapper around it.
    await expect(fetch(`${oldUrl}/healthz`)).rejects.toThrow();

    server = await startProcess('apps/server/src/main.ts', world.env);
    const after = client(server.url, TOKENS.read);
    for (const [n, id] of acked) {
      const res = await after.getPr(n);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, prNumber: n, state: 'pending' });
    }
    const listed = (await after.getQueue()).body.enqueuedPullRequests.map((p: { number: number }) => p.number) as number[];
    expect(new Set(listed).size).toBe(listed.length);
    for (const n of acked.keys()) expect(listed).toContain(n);
  });

  it('when one PR is submitted 100 times at once, then there is exactly one entry and every answer names it', async () => {
    server ??= await startProcess('apps/server/src/main.ts', world.env);
    const ci = client(server.url, TOKENS.write);
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => ci.submit(100, i % 2 ? { priority: 'high' } : {})));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const entries = (await ci.getQueue()).body.enqueuedPullRequests.filter((p: { number: number }) => p.number === 100);
    expect(entries).toHaveLength(1);
  });
});

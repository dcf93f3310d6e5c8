import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createLogger } from '@railyard/observability';
import { bodyBudget, type BodyBudget } from './body-budget';
import { errorHandler } from './errors';

let server: Server;
let port: number;
let budget: BodyBudget;
const sockets: net.Socket[] = [];

beforeEach(async () => {
  budget = bodyBudget({ maxBytesInFlight: 1000, maxBodyBytes: 4000, retryAfterSeconds: 3 });
  const app = express();
  app.use(budget);
  app.post('/', express.raw({ limit: 4000, type: () => true }), (req, res) => {
    res.json({ read: (req.body as Buffer).length });
  });
  app.use(errorHandler(createLogger('test', 'silent')));
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A raw HTTP/1.1 request whose body is sent only in part (or not at all), so it stays in flight. */
const open = (headers: string, body = ''): { socket: net.Socket; answer: Promise<string> } => {
  const socket = net.connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n${headers}\r\n${body}`);
  let text = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (d: Buffer) => {
      text += d.toString();
      const [head, rest] = text.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(head ?? '')?.[1];
      if (length !== undefined && Buffer.byteLength(rest ?? '') >= Number(length)) resolve(text);
    });
    socket.on('close', () => resolve(text));
  });
  return { socket, answer };
};
const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

describe('bodyBudget', () => {
  it('when bodies in flight would go over the cap, then 503 with Retry-After and a JSON error before the body is sent', async () => {
    open('Content-Length: 800\r\n', 'x'.repeat(100));
    await until(() => budget.inFlight() === 800);
    // Nothing of this body is ever sent: the answer cannot have waited for it.
    const refused = await open('Content-Length: 300\r\n').answer;
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toMatch(/\r\nretry-after: 3\r\n/i);
    expect(JSON.parse(refused.split('\r\n\r\n')[1] ?? '')).toEqual({
      error: { code: 'SERVER_BUSY', message: 'the server is reading 1 KiB of request bodies, its limit is 1 KiB; retry in 3 s' },
    });
    expect(budget.inFlight()).toBe(800);
  });

  it('when a request in flight is answered or its client goes away, then its bytes are given back', async () => {
    const first = open('Content-Length: 800\r\n', 'x'.repeat(100));
    await until(() => budget.inFlight() === 800);
    first.socket.destroy();
    await until(() => budget.inFlight() === 0);
    const done = await open('Content-Length: 900\r\n', 'y'.repeat(900)).answer;
    expect(done).toMatch(/^HTTP\/1\.1 200 /);
    expect(done).toContain('{"read":900}');
    expect(budget.inFlight()).toBe(0);
  });

  it('when a request is alone, then it fits even above the cap; a chunked one reserves the largest body', async () => {
    const alone = await open('Content-Length: 3000\r\n', 'z'.repeat(3000)).answer;
    expect(alone).toContain('{"read":3000}');
    open('Transfer-Encoding: chunked\r\n', '5\r\nhello\r\n');
    await until(() => budget.inFlight() === 4000);
    expect(await open('Content-Length: 10\r\n').answer).toMatch(/^HTTP\/1\.1 503 /);
  });

  it('when a request has no body, then it reserves nothing and is never refused', async () => {
    open('Content-Length: 900\r\n', 'x');
    await until(() => budget.inFlight() === 900);
    const empty = await open('Content-Length: 0\r\n').answer;
    expect(empty).toMatch(/^HTTP\/1\.1 200 /);
  });
});

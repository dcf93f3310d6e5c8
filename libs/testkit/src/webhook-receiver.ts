import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP receiver on 127.0.0.1 for the outgoing-webhook tests (libs/webhooks, test/e2e): records every request and answers what
 * `answer` says (200 by default), after `delayMs`.
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (r: Received) => number = () => 200;
  delayMs = 0;
  private server: Server | undefined;
  url = '';

  async start(path = '/hook'): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.received.push(r);
        const status = this.answer(r);
        setTimeout(
          () => res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'receiver is down'),
          this.delayMs,
        );
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

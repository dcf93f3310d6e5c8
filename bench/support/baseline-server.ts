import type { AddressInfo } from 'node:net';
import express from 'express';

/**
 * The yardstick the API benchmark divides by: a bare express app in its own process that parses the
 * JSON request body and answers a JSON body, exactly what a Railyard read does minus Railyard. The
 * answer is set per case (PUT /payload) to the real endpoint's answer, so both send the same bytes.
 * ETags are off, as in Railyard's app, so neither side pays for hashing the body.
 */
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
let payload: unknown = {};

app.put('/payload', express.json({ limit: '20mb' }), (req, res) => {
  payload = req.body as unknown;
  res.status(204).end();
});

app.post('/bench', express.json({ limit: '20mb' }), (_req, res) => {
  res.json(payload);
});

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ message: 'baseline listening', port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});

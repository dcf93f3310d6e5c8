import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { PROMETHEUS_CONTENT_TYPE } from './metrics-text';
import { railyardRegistry } from './metrics-registry';
import { collectProcessMetrics, registryText } from './process-metrics';
import { listenOrExplain } from './listen';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The metrics listener of a process that serves no HTTP otherwise (the standalone engine and
 * projector): GET /metrics in the Prometheus text format, GET /healthz for liveness, 404 for anything
 * else. Nothing secret is exposed (the series carry no tokens or bodies), so it takes no token; bind it
 * to an address only the scraper reaches (docs/operations.md, "Metrics").
 */
export const startMetricsServer = async (options: { port: number; host: string; registry?: Registry }): Promise<MetricsServer> => {
  const registry = options.registry ?? railyardRegistry;
  collectProcessMetrics(registry);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET', 'Content-Type': 'text/plain' }).end('use GET\n');
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found; see /metrics\n');
      return;
    }
    registryText(registry).then(
      (text) => res.writeHead(200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE }).end(text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
  await listenOrExplain(server, options.port, options.host, 'RAILYARD_METRICS_PORT');
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

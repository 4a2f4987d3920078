/**
 * `--metrics-port` of hub, bridge and sync: an HTTP listener that answers GET /metrics with the
 * process's Prometheus text (metrics/metrics.ts) and 404 to anything else. serve answers
 * /metrics on its own port instead (start-server.ts).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EdgetableMetrics } from '../metrics/metrics.js';

export type MetricsServer = { readonly port: number; readonly host: string; close(): Promise<void> };

export async function startMetricsServer(metrics: EdgetableMetrics, port: number, host = '127.0.0.1'): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url ?? '/').split('?', 1)[0] === '/metrics') void sendMetrics(res, metrics);
    else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found: the metrics are at GET /metrics\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    host,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** 200 with the exposition text, or 500 with the reason when reading a figure failed. */
export async function sendMetrics(res: ServerResponse, metrics: EdgetableMetrics): Promise<void> {
  try {
    const text = await metrics.text();
    res.writeHead(200, { 'content-type': metrics.contentType });
    res.end(text);
  } catch (error) {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(`cannot read the metrics: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

/**
 * The broker a bench child talks to: the one at `url` when given (Mosquitto in CI and on a
 * device), else an embedded aedes broker on a free loopback port, closed by close().
 */
import { createServer } from 'node:net';
import { Aedes } from 'aedes';
import { connectAsync } from 'mqtt';

export type BenchBroker = {
  url: string;
  kind: 'aedes (embedded)' | 'external';
  /** Stops the embedded broker; nothing for an external one. */
  close(): Promise<void>;
};

export async function benchBroker(url: string | undefined): Promise<BenchBroker> {
  if (url) return { url, kind: 'external', close: async () => {} };
  const aedes = await Aedes.createBroker();
  const server = createServer((socket) => void aedes.handle(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `mqtt://127.0.0.1:${(server.address() as { port: number }).port}`,
    kind: 'aedes (embedded)',
    close: async () => {
      server.close();
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
}

/**
 * Clears retained topics (schemas a run announced on a shared broker) with empty retained
 * messages, so later hubs there do not see the run's tables. mqtt directly, not sync/'s MqttLink:
 * its close() abandons QoS 1 publishes still in flight.
 */
export async function clearRetained(brokerUrl: string, topics: string[]): Promise<void> {
  if (topics.length === 0) return;
  const client = await connectAsync(brokerUrl, { clientId: `edgetable-bench-clear-${process.pid}`, protocolVersion: 4, connectTimeout: 10_000, reconnectPeriod: 0 });
  try {
    for (const t of topics) await client.publishAsync(t, '', { qos: 1, retain: true });
  } finally {
    await client.endAsync();
  }
}

/**
 * MQTT brokers for the sync and hub tests. With MQTT_URL set (Mosquitto on 127.0.0.1:1883 in CI),
 * clients reach it through a local TCP proxy; otherwise an embedded aedes broker listens on a free
 * loopback port. Either way `outage()` cuts every connection and refuses new ones until
 * `restore()`, which listens again on the same port: a broker outage as clients see it.
 *
 * A shared broker keeps retained messages between test files and between runs, and a hub creates
 * tables from the retained schemas it finds: so with MQTT_URL every test file starts by clearing
 * the default namespace's retained schemas, and the Mosquitto pass of .ci/run runs files one at a
 * time, which gives each file the clean broker aedes gives it.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import { clearRetainedSchemas } from '../../src/hub/clear-schemas.js';

export type TestBroker = {
  readonly url: string;
  readonly external: boolean;
  /** Shared subscriptions ($share/...) work: Mosquitto yes, aedes no. */
  readonly sharedSubscriptions: boolean;
  outage(): Promise<void>;
  restore(): Promise<void>;
  stop(): Promise<void>;
};

export async function startBroker(): Promise<TestBroker> {
  const external = process.env.MQTT_URL;
  let aedes: Aedes | undefined;
  let handle: (socket: Socket) => void;
  if (external) {
    const target = new URL(external);
    handle = (socket) => {
      const upstream = connect(Number(target.port || 1883), target.hostname);
      socket.pipe(upstream).pipe(socket);
      const close = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    };
  } else {
    aedes = await Aedes.createBroker();
    const broker = aedes;
    handle = (socket) => void broker.handle(socket);
  }
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        handle(socket);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (s) s.close(() => resolve());
      else resolve();
    });
  await listen();
  if (external) await clearRetainedSchemas({ url: `mqtt://127.0.0.1:${port}`, settleMs: 300 });
  return {
    url: `mqtt://127.0.0.1:${port}`,
    external: external !== undefined,
    sharedSubscriptions: external !== undefined,
    outage: cut,
    restore: async () => {
      for (let i = 0; ; i++) {
        try {
          return await listen();
        } catch (err) {
          if (i > 50) throw err;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    },
    stop: async () => {
      await cut();
      if (aedes) await new Promise<void>((resolve) => aedes!.close(() => resolve()));
    },
  };
}

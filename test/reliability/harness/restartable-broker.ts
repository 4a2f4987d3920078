/**
 * A broker the soak run can really restart: our own Mosquitto process (stopped and started again
 * by PID on the same port) when mosquitto is installed, otherwise an embedded aedes broker that
 * is closed, connections and all, and replaced by a fresh instance listening on the same port.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import { findMosquitto, startOwnMosquitto } from './own-mosquitto.js';

export type RestartableBroker = {
  readonly url: string;
  readonly kind: 'mosquitto' | 'aedes';
  /** Whether clients can connect now. */
  readonly up: boolean;
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
};

export async function startRestartableBroker(prefer: 'auto' | 'mosquitto' | 'aedes' = 'auto'): Promise<RestartableBroker> {
  if (prefer === 'mosquitto' || (prefer === 'auto' && findMosquitto())) {
    const m = await startOwnMosquitto((port) => `listener ${port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 10000`);
    let up = true;
    return {
      url: `mqtt://127.0.0.1:${m.port}`,
      kind: 'mosquitto',
      get up() {
        return up;
      },
      restart: async (downMs) => {
        up = false;
        await m.restart(downMs);
        up = true;
      },
      stop: async () => {
        up = false;
        await m.dispose();
      },
    };
  }
  return startAedes();
}

async function startAedes(): Promise<RestartableBroker> {
  let port = 0;
  let aedes: Aedes | undefined;
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  const start = async () => {
    const broker = await Aedes.createBroker();
    aedes = broker;
    await new Promise<void>((resolve, reject) => {
      const s = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        void broker.handle(socket);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  };
  const stop = async () => {
    const s = server;
    const a = aedes;
    server = undefined;
    aedes = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
    if (a) await new Promise<void>((r) => a.close(() => r()));
  };
  await start();
  return {
    url: `mqtt://127.0.0.1:${port}`,
    kind: 'aedes',
    get up() {
      return server !== undefined;
    },
    restart: async (downMs) => {
      await stop();
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      for (let i = 0; ; i++) {
        try {
          return await start();
        } catch (err) {
          if (i > 50) throw err;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    },
    stop,
  };
}

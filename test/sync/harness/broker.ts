/**
 * The convergence test's broker. Without MQTT_URL: an aedes broker in a child process
 * (broker-process.ts) on a fixed loopback port, restarted by SIGKILL and a new process on the same
 * port. With MQTT_URL: that broker, which this harness did not start and so never restarts
 * (`restartable` false; the schedule's restarts are skipped and counted).
 */
import { createServer } from 'node:net';
import { HarnessChild } from './child-process.js';

export type ConvergenceBroker = {
  readonly url: string;
  readonly restartable: boolean;
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
};

export async function startConvergenceBroker(external: string | undefined): Promise<ConvergenceBroker> {
  if (external) {
    return { url: external, restartable: false, restart: async () => undefined, stop: async () => undefined };
  }
  const port = await freePort();
  const start = async () => {
    const child = new HarnessChild('broker', 'broker-process.ts', { port });
    await child.event('ready', 30_000);
    return child;
  };
  let child = await start();
  return {
    url: `mqtt://127.0.0.1:${port}`,
    restartable: true,
    restart: async (downMs) => {
      await child.kill('SIGKILL');
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      child = await start();
    },
    stop: () => child.kill('SIGKILL'),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * An aedes broker in its own process for the convergence test, so the parent can really restart
 * it (SIGKILL, then a new process on the same port): `broker-process.ts '{"port":N}'`. Sends the
 * event `ready` with its port once it listens. Retained messages and sessions die with it, as
 * they would with a broker without persistence.
 */
import { createServer } from 'node:net';
import { Aedes } from 'aedes';
import { sendEvent } from './child-process.js';

const { port } = JSON.parse(process.argv[2]!) as { port: number };
const aedes = await Aedes.createBroker();
const server = createServer((socket) => void aedes.handle(socket));
for (let attempt = 0; ; attempt++) {
  try {
    // The previous broker's port may linger for a moment after its process died.
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    break;
  } catch (err) {
    if (attempt > 100) throw err;
    await new Promise((r) => setTimeout(r, 50));
  }
}
sendEvent('ready', (server.address() as { port: number }).port);
process.on('disconnect', () => process.exit(0));

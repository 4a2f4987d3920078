/** dynalite in-process on a free loopback port: the stand-in for DynamoDB that forwarding tests write to. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

type DynaliteFactory = (options: { createTableMs?: number; deleteTableMs?: number; updateTableMs?: number }) => Server;

export type Dynalite = { readonly endpoint: string; stop(): Promise<void> };

export async function startDynalite(): Promise<Dynalite> {
  const dynalite = createRequire(import.meta.url)('dynalite') as DynaliteFactory;
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const TEST_CREDENTIALS = { accessKeyId: 'edgetable', secretAccessKey: 'edgetable' };

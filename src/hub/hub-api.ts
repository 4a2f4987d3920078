/**
 * The hub's outward services on its store: the DynamoDB and Streams APIs (server/start-server.ts,
 * as `edgetable serve` does) with option `port`, and the forwarder (forward/start-forwarder.ts)
 * with option `forward`.
 */
import type { Edgetable } from '../edgetable.js';
import { startServer, type RunningServer } from '../server/start-server.js';
import { startForwarder, type ForwardStatus } from './forward/start-forwarder.js';
import type { HubOptions } from './hub-types.js';

export type HubApi = {
  /** Resolves once the API listens (at once without `port`); rejects if it cannot listen. */
  readonly ready: Promise<void>;
  /** Where the API listens, once it does. */
  address(): { readonly host: string; readonly port: number } | undefined;
  forwardStatus(): ForwardStatus | undefined;
  /** Stops the forwarder, then closes the API once it listens (a failed listen is not an error here). */
  stop(): Promise<void>;
};

/** `onListenError` reports a port the API could not listen on (lastError); `ready` rejects too. */
export function startHubApi(db: Edgetable, options: Pick<HubOptions, 'port' | 'host' | 'apiLimits' | 'auth' | 'forward'>, onListenError: (message: string) => void): HubApi {
  let server: RunningServer | undefined;
  const listening =
    options.port === undefined
      ? Promise.resolve(undefined)
      : startServer({ db, port: options.port, ...(options.host ? { host: options.host } : {}), ...options.apiLimits, ...(options.auth ? { auth: options.auth } : {}) }).then((s) => (server = s));
  const ready = listening.then(() => undefined);
  ready.catch(() => undefined); // a caller that never awaits ready still sees lastError
  listening.catch((err: unknown) => {
    onListenError(`serving the API: ${(err as Error).message}`);
  });
  const forwarder = options.forward ? startForwarder(db, options.forward) : undefined;
  return {
    ready,
    address: () => (server ? { host: server.host, port: server.port } : undefined),
    forwardStatus: () => forwarder?.status(),
    stop: async () => {
      await forwarder?.stop();
      await listening.then((s) => s?.close(), () => undefined);
    },
  };
}

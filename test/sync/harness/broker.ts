/**
 * The convergence test's broker, one of three (`BrokerChoice`):
 *   aedes          an aedes broker in a child process (broker-process.ts) on a fixed loopback port,
 *                  restarted by SIGKILL and a new process on the same port.
 *   mosquitto-tls  a Mosquitto of the test's own (test/reliability/harness/own-mosquitto.ts
 *                  startTlsMosquitto): TLS only, a client certificate required and its CN taken as
 *                  the login, and the per-device ACL of docs/sync.md built from the run's topic
 *                  namespace (device-acl.ts). Every device and the hub connect with a certificate of
 *                  their own (`tlsFor`), made with openssl in `pkiDir`. Restarted by stopping the
 *                  process (by its pid) and starting it again on the same port.
 *   external       MQTT_URL, which this harness did not start and so never restarts (`restartable`
 *                  false; the schedule's restarts are skipped and counted).
 */
import { deviceAcl } from '../../reliability/harness/device-acl.js';
import { freePort, startTlsMosquitto } from '../../reliability/harness/own-mosquitto.js';
import { makeTestPki, type Pem } from '../../reliability/harness/test-pki.js';
import { HarnessChild } from './child-process.js';

export type BrokerChoice = { readonly kind: 'aedes' } | { readonly kind: 'mosquitto-tls' } | { readonly kind: 'external'; readonly url: string };

/** startSync's and startHub's TLS options, as PEM text (it travels to the processes in their JSON config). */
export type ClientTls = { readonly ca: string; readonly cert: string; readonly key: string };

export type ConvergenceBroker = {
  readonly url: string;
  readonly restartable: boolean;
  /** The TLS identity whose certificate CN is `login` (a device id, or HUB_LOGIN); undefined without TLS. */
  tlsFor(login: string): ClientTls | undefined;
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
};

/** The hub's login (its certificate's CN) on the TLS Mosquitto, the ACL's hub user. */
export const HUB_LOGIN = 'hub';

/** `namespace` is the run's topic namespace (the ACL is built from it), `pkiDir` an empty folder for the certificates. */
export async function startConvergenceBroker(choice: BrokerChoice, run: { readonly namespace: string; readonly pkiDir: string }): Promise<ConvergenceBroker> {
  const noTls = () => undefined;
  switch (choice.kind) {
    case 'external':
      return { url: choice.url, restartable: false, tlsFor: noTls, restart: async () => undefined, stop: async () => undefined };
    case 'mosquitto-tls': {
      const pki = makeTestPki(run.pkiDir);
      const broker = await startTlsMosquitto(pki, deviceAcl({ namespace: run.namespace, hubUser: HUB_LOGIN }), { allowAnonymous: false });
      // One certificate per login, made once: a restarted device connects as itself again.
      const certs = new Map<string, Pem>();
      return {
        url: `mqtts://127.0.0.1:${broker.port}`,
        restartable: true,
        tlsFor: (login) => {
          if (!certs.has(login)) certs.set(login, pki.client(login));
          return { ca: pki.ca, ...certs.get(login)! };
        },
        restart: (downMs) => broker.restart(downMs),
        stop: () => broker.dispose(),
      };
    }
    case 'aedes':
      break;
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
    tlsFor: noTls,
    restart: async (downMs) => {
      await child.kill('SIGKILL');
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      child = await start();
    },
    stop: () => child.kill('SIGKILL'),
  };
}

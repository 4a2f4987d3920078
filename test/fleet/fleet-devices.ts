/**
 * The fleet's devices, in device hosts (fleet-device.ts): one process per device (a kill is a
 * SIGKILL), or all in one process (`inProcess`: a kill is the host's abrupt `crash` of that device,
 * which stops its sync without a goodbye and closes its store). Either way the parent sees one
 * interface: call a device, kill it, open it again (after a re-flash, on an empty folder).
 */
import { HarnessChild } from '../sync/harness/child-process.js';
import type { FleetDeviceConfig } from './fleet-device.js';

export class FleetDevices {
  private readonly hosts: (HarnessChild | undefined)[];
  private readonly starting: (Promise<void> | undefined)[];
  /** Each device's current incarnation (a re-flash makes a new one). */
  readonly incarnations = new Map<number, string>();
  private readonly downIn = new Set<number>();

  constructor(
    private readonly configs: readonly FleetDeviceConfig[],
    private readonly inProcess: boolean,
  ) {
    this.hosts = configs.map(() => undefined);
    this.starting = configs.map(() => undefined);
  }

  async start(): Promise<void> {
    if (this.inProcess) {
      const host = new HarnessChild('devices', '../../fleet/fleet-device.ts', this.configs);
      this.hosts.fill(host);
      this.record((await host.event('ready', 120_000)) as Record<string, string>);
      return;
    }
    await Promise.all(this.configs.map((_, i) => this.restart(i, 0)));
  }

  private record(incarnations: Record<string, string>): void {
    for (const [i, inc] of Object.entries(incarnations)) this.incarnations.set(Number(i), inc);
  }

  /** Running and not starting: calls go through. */
  up(i: number): boolean {
    return this.hosts[i]?.alive === true && this.starting[i] === undefined && !this.downIn.has(i);
  }

  /** A call to device `i`; while it starts, sent once it is ready. */
  call<T>(i: number, cmd: string, args: Record<string, unknown> = {}): Promise<T> {
    const host = this.hosts[i];
    // Never sent: a write refused here is 'failed' (not made), not 'maybe'.
    if (!host || this.downIn.has(i)) return Promise.reject(new Error(`device ${i} is down`));
    const send = () => host.call<T>(cmd, { ...args, device: i });
    const starting = this.starting[i];
    return starting ? starting.then(send) : send();
  }

  async kill(i: number): Promise<void> {
    if (this.inProcess) {
      this.downIn.add(i);
      await this.hosts[i]!.call('crash', { device: i }).catch(() => undefined);
      return;
    }
    await this.hosts[i]?.kill('SIGKILL');
  }

  /** Starts device `i` again on its folder, its engine clock `clockOffsetMs` off the wall clock. */
  restart(i: number, clockOffsetMs: number): Promise<void> {
    const start = async () => {
      if (this.inProcess) {
        const inc = await this.hosts[i]!.call<string>('open', { device: i, clockOffsetMs });
        this.downIn.delete(i);
        this.incarnations.set(i, inc);
        return;
      }
      const host = new HarnessChild(this.configs[i]!.deviceId, '../../fleet/fleet-device.ts', [{ ...this.configs[i]!, clockOffsetMs }]);
      this.hosts[i] = host;
      this.record((await host.event('ready', 120_000)) as Record<string, string>);
    };
    const p = start().finally(() => (this.starting[i] = undefined));
    this.starting[i] = p;
    return p;
  }

  /** Every device closed cleanly (sync stopped, store closed), then every host gone. */
  async close(): Promise<void> {
    await Promise.all(this.starting);
    const hosts = [...new Set(this.hosts)].filter((h): h is HarnessChild => h !== undefined);
    await Promise.all(hosts.map((h) => h.call('close').catch(() => undefined)));
    await Promise.all(hosts.map((h) => Promise.race([h.exited, sleep(10_000)])));
    await this.killAll();
  }

  async killAll(): Promise<void> {
    await Promise.all([...new Set(this.hosts)].map((h) => h?.kill('SIGKILL')));
  }

  stderrOf(i: number): string {
    return this.hosts[i]?.stderr ?? '';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

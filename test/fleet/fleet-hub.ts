/**
 * The fleet's hub: the convergence harness's hub process (hub-process.ts) on its folder, killed
 * and started again by chaos; and a second hub on the same namespace and broker, on a folder of its
 * own, for a while (`runSecond`). With hub presence, the second hub stands by (or refuses to
 * start) while the first is alive; what it did is reported as it is, from its status and stderr.
 */
import type { HubStatus } from '../../src/hub/start-hub.js';
import { HarnessChild } from '../sync/harness/child-process.js';
import type { HubConfig } from '../sync/harness/hub-process.js';

/** What the second hub did: whether it started, what it applied and sent while it ran, what it said. */
export type SecondHubReport = {
  readonly started: boolean;
  readonly recordsApplied: number;
  readonly downRecordsSent: number;
  readonly lastError?: string;
  /** Its status's fields beyond the counters the fleet reads (e.g. the hubs it sees), as JSON. */
  readonly status?: string;
  readonly stderr: string;
};

export class FleetHub {
  private proc: HarnessChild | undefined;
  private starting: Promise<void> | undefined;
  private readonly extra = new Set<HarnessChild>();

  constructor(private readonly config: HubConfig) {}

  start(): Promise<void> {
    const child = new HarnessChild('hub', 'hub-process.ts', this.config);
    this.proc = child;
    this.starting = child
      .event('ready', 60_000)
      .then(() => undefined)
      .finally(() => (this.starting = undefined));
    return this.starting;
  }

  up(): boolean {
    return this.proc?.alive === true && this.starting === undefined;
  }

  child(): HarnessChild {
    return this.proc!;
  }

  call<T>(cmd: string, args: Record<string, unknown> = {}): Promise<T> {
    return this.proc!.call<T>(cmd, args);
  }

  /** The hub's status, or undefined while it is down. */
  async status(): Promise<HubStatus | undefined> {
    return this.up() ? this.proc!.call<HubStatus>('status').catch(() => undefined) : undefined;
  }

  kill(): Promise<void> {
    return this.proc!.kill('SIGKILL');
  }

  async runSecond(path: string, forMs: number, log: (line: string) => void): Promise<SecondHubReport> {
    const { forward: _f, ...config } = this.config;
    const second = new HarnessChild('hub-2', 'hub-process.ts', { ...config, path });
    this.extra.add(second);
    const started = await second.event('ready', 30_000).then(
      () => true,
      (err: Error) => (log(`second hub: ${err.message.slice(0, 300)}`), false),
    );
    let status: HubStatus | undefined;
    if (started) {
      await new Promise((r) => setTimeout(r, forMs));
      status = await second.call<HubStatus>('status').catch(() => undefined);
      await second.call('close').catch(() => undefined);
    }
    await Promise.race([second.exited, new Promise((r) => setTimeout(r, 10_000))]);
    await second.kill('SIGKILL');
    this.extra.delete(second);
    const { recordsApplied = 0, down, lastError } = status ?? ({} as Partial<HubStatus>);
    const others = status ? presenceFields(status) : undefined;
    return {
      started,
      recordsApplied,
      downRecordsSent: down?.recordsSent ?? 0,
      ...(lastError ? { lastError } : {}),
      ...(others ? { status: others } : {}),
      stderr: second.stderr.slice(-600),
    };
  }

  async close(): Promise<void> {
    if (!this.up()) return;
    await this.proc!.call('close').catch(() => undefined);
    await Promise.race([this.proc!.exited, new Promise((r) => setTimeout(r, 10_000))]);
  }

  async killAll(): Promise<void> {
    await Promise.all([this.proc, ...this.extra].map((p) => p?.kill('SIGKILL')));
  }
}

const KNOWN_FIELDS = new Set(['online', 'lastError', 'batchesApplied', 'recordsApplied', 'recordsSuperseded', 'duplicateRecords', 'refusedBatches', 'deadLetteredRecords', 'clockRefused', 'unauthorizedRecords', 'unauthorizedSchemas', 'versionConflicts', 'applyErrors', 'catalogRetries', 'versionsCollected', 'incarnation', 'clock', 'rejected', 'rejectedTotal', 'gaps', 'tables', 'api', 'forward', 'down', 'logRecordsPruned', 'refusedDevices', 'refusedDeviceMessages', 'staleSchemas', 'schemaConflicts']);

/** A hub status's fields beyond those this test knows (where a hub names the other hubs it sees), as JSON; undefined when none. */
export function presenceFields(status: HubStatus): string | undefined {
  const others = Object.fromEntries(Object.entries(status).filter(([k]) => !KNOWN_FIELDS.has(k)));
  return Object.keys(others).length > 0 ? JSON.stringify(others).slice(0, 600) : undefined;
}

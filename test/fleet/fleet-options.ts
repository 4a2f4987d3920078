/**
 * `npm run fleet -- --devices N --minutes M --seed S [options]`: the fleet test's arguments.
 * Pure: parseFleetArgs(argv) returns the options or throws a FleetUsageError naming the bad one.
 */
export type FleetOptions = {
  readonly devices: number;
  readonly minutes: number;
  readonly seed: number;
  /** Writes per second, all writers together. */
  readonly writesPerSecond: number;
  /** Devices in one process (a device host) instead of one process each: 50 devices on 2 cores. */
  readonly inProcess: boolean;
  /** Start a second hub on the namespace for a while (hub presence: it must stand by or be refused). */
  readonly secondHub: boolean;
  /** Plant one record the endpoint refuses: it must end in the dead letters, and forwarding go on. */
  readonly poison: boolean;
  /** Quiescence must come within this long after the schedule ends. */
  readonly quiesceSeconds: number;
  /** Keep the run's folders (printed) instead of removing them. */
  readonly keep: boolean;
  readonly verbose: boolean;
};

export const FLEET_USAGE = `usage: npm run fleet -- [--devices N] [--minutes M] [--seed S] [--rate W]
  [--in-process] [--no-second-hub] [--no-poison] [--quiesce-seconds Q] [--keep] [--verbose]
  --devices N          devices (default 8)
  --minutes M          length of the write and chaos schedule (default 2; fractions allowed)
  --seed S             the schedule's seed (default 1)
  --rate W             writes per second, all writers together (default 2 per device, at most 40)
  --in-process         all devices in one process (default: one process per device)
  --no-second-hub      skip the chaos event that starts a second hub on the namespace
  --no-poison          skip the record the endpoint refuses
  --quiesce-seconds Q  deadline for quiescence after the schedule (default 120 + 2 per device)
  --keep               keep the stores (their folder is printed)
  MQTT_URL             use that broker (then broker restarts are skipped) instead of an aedes child`;

export class FleetUsageError extends Error {
  override readonly name = 'FleetUsageError';
}

export function parseFleetArgs(argv: readonly string[]): FleetOptions {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const VALUED = ['--devices', '--minutes', '--seed', '--rate', '--quiesce-seconds'];
  const BOOLEAN = ['--in-process', '--second-hub', '--no-second-hub', '--poison', '--no-poison', '--keep', '--verbose'];
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    if (VALUED.includes(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new FleetUsageError(`${name} needs a value`);
      values.set(name, value);
    } else if (BOOLEAN.includes(name) && inline === undefined) flags.add(name);
    else throw new FleetUsageError(`unknown argument ${argv[i]}`);
  }
  const num = (name: string, fallback: number, check: (n: number) => boolean, what: string) => {
    const raw = values.get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || !check(n)) throw new FleetUsageError(`${name} must be ${what}, got ${JSON.stringify(raw)}`);
    return n;
  };
  const devices = num('--devices', 8, (n) => Number.isInteger(n) && n >= 2 && n <= 500, 'an integer from 2 to 500');
  return {
    devices,
    minutes: num('--minutes', 2, (n) => n > 0 && n <= 24 * 60, 'a positive number of minutes (at most a day)'),
    seed: num('--seed', 1, (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32, 'an integer from 0 to 2^32 - 1'),
    writesPerSecond: num('--rate', Math.min(40, 2 * devices), (n) => n > 0 && n <= 10_000, 'a positive number of writes per second'),
    inProcess: flags.has('--in-process'),
    secondHub: !flags.has('--no-second-hub'),
    poison: !flags.has('--no-poison'),
    quiesceSeconds: num('--quiesce-seconds', 120 + 2 * devices, (n) => n > 0, 'a positive number of seconds'),
    keep: flags.has('--keep'),
    verbose: flags.has('--verbose'),
  };
}

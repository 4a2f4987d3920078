/**
 * Which devices a hub listens to, what each may subscribe to, and what each may write (docs/sync.md,
 * "Securing a shared broker"; docs/security.md). Pure: no I/O, no state; the hub asks `isAllowed`
 * for every batch and schema, `tableWriteDenial` for every schema and batch, `writeDenial` for
 * every record, and the down direction asks `authorizeSubscription` for every subscription.
 *
 *   allowDevices   ['pump-*', 'van-3'] | (deviceId) => boolean       omitted: every device
 *   subscriptions  { 'van-*': { WorkOrders: ['site-7'], Catalog: '*' } }   omitted: anything
 *   writeGrants    the same shape               omitted: `subscriptions`; both omitted: anything
 *
 * A pattern is a device id in which `*` stands for any run of characters (none included). In a
 * grant map every entry whose pattern matches the device grants its tables: a list names the
 * partition key values it may receive (or write), '*' the whole table. A device matching no entry,
 * or a table no matching entry names, gets nothing (the map is an allow-list too). A subscription
 * to a whole table (partitionKeys omitted) needs '*'. A device the allow-list refuses gets nothing.
 * Write grants default to the subscription grants: a device writes what it may read.
 *
 * The broker's ACL is the first line of defence (a device's credentials confine it to its own
 * topics); this is the hub's own check, for brokers shared by several deployments.
 */
import { ValidationException } from '../model/errors.js';

export type DevicePatterns = readonly string[];
export type AllowDevices = DevicePatterns | ((deviceId: string) => boolean);
/** Per device pattern, per table: the partition key values a device may receive, or '*' for all. */
export type SubscriptionPermissions = Readonly<Record<string, Readonly<Record<string, readonly PartitionKeyValue[] | '*'>>>>;
/** Per device pattern, per table: the partition key values a device may write, or '*' for all. */
export type WriteGrants = SubscriptionPermissions;
/** A partition key value as a device lists it: a string, a number, or an AttributeValue with S or N. */
export type PartitionKeyValue = string | number | { readonly S: string } | { readonly N: string };

export type DeviceAccessOptions = {
  readonly allowDevices?: AllowDevices;
  readonly subscriptions?: SubscriptionPermissions;
  readonly writeGrants?: WriteGrants;
};

export type DeviceAccess = {
  isAllowed(deviceId: string): boolean;
  /** Why a device may not subscribe to `partitionKeys` of `table` (omitted: the whole table); undefined when it may. */
  subscriptionDenial(deviceId: string, table: string, partitionKeys?: readonly PartitionKeyValue[]): string | undefined;
  /** The hook the down direction calls: true when the device may receive those partitions. */
  authorizeSubscription(deviceId: string, table: string, partitionKeys?: readonly PartitionKeyValue[]): boolean;
  /** Why a device may write nothing of `table` (nor announce it); undefined when its grants name the table. */
  tableWriteDenial(deviceId: string, table: string): string | undefined;
  /** Why a device may not write the item of partition key value `partitionKey` of `table`; undefined when it may. */
  writeDenial(deviceId: string, table: string, partitionKey: PartitionKeyValue): string | undefined;
};

const PATTERN = /^[a-zA-Z0-9_.*-]{1,128}$/;

/** A matcher for one pattern; throws ValidationException for a pattern no device id could match. */
export function devicePattern(pattern: string): (deviceId: string) => boolean {
  if (!PATTERN.test(pattern)) {
    throw new ValidationException(`invalid device pattern ${JSON.stringify(pattern)}: 1 to 128 of [a-zA-Z0-9_.-], with * for any run of characters`);
  }
  if (!pattern.includes('*')) return (id) => id === pattern;
  const re = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.]/g, '\\.')).join('.*')}$`);
  return (id) => re.test(id);
}

/** Patterns from a text: separated by commas, spaces or new lines; `#` starts a comment (a file of them). */
export function parseDevicePatterns(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .flatMap((line) => line.split(/[\s,]+/))
    .filter((p) => p !== '');
}

export function createDeviceAccess(options: DeviceAccessOptions = {}): DeviceAccess {
  const isAllowed = allowFilter(options.allowDevices);
  const reads = options.subscriptions === undefined ? undefined : compileGrants(options.subscriptions, 'subscriptions');
  const writes = options.writeGrants !== undefined ? compileGrants(options.writeGrants, 'writeGrants') : reads;
  const subscriptionDenial = (deviceId: string, table: string, partitionKeys?: readonly PartitionKeyValue[]): string | undefined => {
    if (!isAllowed(deviceId)) return `device ${deviceId} is not on the hub's allow-list`;
    if (!reads) return undefined;
    const granted = grantOf(reads, deviceId, table);
    if (granted === '*') return undefined;
    if (partitionKeys === undefined) return `device ${deviceId} may not subscribe to the whole table ${table}`;
    const denied = partitionKeys.map(keyString).filter((k) => !granted?.has(k));
    if (denied.length > 0) return `device ${deviceId} may not subscribe to ${table} partition key ${denied.map((k) => JSON.stringify(k)).join(', ')}`;
    return undefined;
  };
  const tableWriteDenial = (deviceId: string, table: string): string | undefined => {
    if (!isAllowed(deviceId)) return `device ${deviceId} is not on the hub's allow-list`;
    if (!writes || grantOf(writes, deviceId, table) !== undefined) return undefined;
    return `device ${deviceId} may not write table ${table}`;
  };
  return {
    isAllowed,
    subscriptionDenial,
    authorizeSubscription: (deviceId, table, partitionKeys) => subscriptionDenial(deviceId, table, partitionKeys) === undefined,
    tableWriteDenial,
    writeDenial: (deviceId, table, partitionKey) => {
      const denial = tableWriteDenial(deviceId, table);
      if (denial !== undefined || !writes) return denial;
      const granted = grantOf(writes, deviceId, table);
      const key = keyString(partitionKey);
      if (granted === '*' || granted?.has(key)) return undefined;
      return `device ${deviceId} may not write ${table} partition key ${JSON.stringify(key)}`;
    },
  };
}

type Grant = { readonly matches: (deviceId: string) => boolean; readonly tables: ReadonlyMap<string, '*' | ReadonlySet<string>> };

/** What every entry matching the device grants of `table`, added up: '*', the key values, or undefined (nothing). */
function grantOf(grants: readonly Grant[], deviceId: string, table: string): '*' | ReadonlySet<string> | undefined {
  let values: Set<string> | undefined;
  for (const g of grants) {
    const granted = g.matches(deviceId) ? g.tables.get(table) : undefined;
    if (granted === undefined) continue;
    if (granted === '*') return '*';
    values ??= new Set();
    for (const v of granted) values.add(v);
  }
  return values;
}

function allowFilter(allow: AllowDevices | undefined): (deviceId: string) => boolean {
  if (allow === undefined) return () => true;
  if (typeof allow === 'function') return allow;
  if (!Array.isArray(allow)) throw new ValidationException('allowDevices must be a list of device patterns or a function');
  const matchers = allow.map(devicePattern);
  return (id) => matchers.some((m) => m(id));
}

function compileGrants(map: SubscriptionPermissions, option: string): Grant[] {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) throw new ValidationException(`${option} must map device patterns to { table: [partition key values] | "*" }`);
  return Object.entries(map).map(([pattern, tables]) => {
    if (typeof tables !== 'object' || tables === null || Array.isArray(tables)) throw new ValidationException(`${option}[${JSON.stringify(pattern)}] must map table names to partition key values or "*"`);
    const compiled = new Map<string, '*' | ReadonlySet<string>>();
    for (const [table, granted] of Object.entries(tables)) {
      if (granted !== '*' && !Array.isArray(granted)) throw new ValidationException(`${option}[${JSON.stringify(pattern)}][${JSON.stringify(table)}] must be a list of partition key values or "*"`);
      // Each value is validated now, not at the first subscription or write.
      compiled.set(table, granted === '*' ? '*' : new Set((granted as readonly PartitionKeyValue[]).map(keyString)));
    }
    return { matches: devicePattern(pattern), tables: compiled };
  });
}

/** One spelling per partition key value: a number and its string form are the same key value. */
function keyString(v: PartitionKeyValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'object' && v !== null) {
    if ('S' in v && typeof v.S === 'string') return v.S;
    if ('N' in v && typeof v.N === 'string') return String(Number(v.N));
  }
  throw new ValidationException(`a partition key value must be a string, a number or {S} / {N}, not ${JSON.stringify(v)}`);
}

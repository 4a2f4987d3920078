/**
 * Which devices a hub listens to, and what each may subscribe to (docs/sync.md, "Securing a shared
 * broker"). Pure: no I/O, no state; the hub asks `isAllowed` for every batch and schema, and the
 * down direction asks `authorizeSubscription` for every subscription a device announces.
 *
 *   allowDevices   ['pump-*', 'van-3'] | (deviceId) => boolean       omitted: every device
 *   subscriptions  { 'van-*': { WorkOrders: ['site-7'], Catalog: '*' } }   omitted: anything
 *
 * A pattern is a device id in which `*` stands for any run of characters (none included). In the
 * subscription map every entry whose pattern matches the device grants its tables: a list names
 * the partition key values it may receive, '*' the whole table. A device matching no entry, or a
 * table no matching entry names, gets nothing (the map is an allow-list too). A subscription to a
 * whole table (partitionKeys omitted) needs '*'. A device the allow-list refuses gets nothing.
 *
 * The broker's ACL is the first line of defence (a device's credentials confine it to its own
 * topics); this is the hub's own check, for brokers shared by several deployments.
 */
import { ValidationException } from '../model/errors.js';

export type DevicePatterns = readonly string[];
export type AllowDevices = DevicePatterns | ((deviceId: string) => boolean);
/** Per device pattern, per table: the partition key values a device may receive, or '*' for all. */
export type SubscriptionPermissions = Readonly<Record<string, Readonly<Record<string, readonly PartitionKeyValue[] | '*'>>>>;
/** A partition key value as a device lists it: a string, a number, or an AttributeValue with S or N. */
export type PartitionKeyValue = string | number | { readonly S: string } | { readonly N: string };

export type DeviceAccessOptions = {
  readonly allowDevices?: AllowDevices;
  readonly subscriptions?: SubscriptionPermissions;
};

export type DeviceAccess = {
  isAllowed(deviceId: string): boolean;
  /** Why a device may not subscribe to `partitionKeys` of `table` (omitted: the whole table); undefined when it may. */
  subscriptionDenial(deviceId: string, table: string, partitionKeys?: readonly PartitionKeyValue[]): string | undefined;
  /** The hook the down direction calls: true when the device may receive those partitions. */
  authorizeSubscription(deviceId: string, table: string, partitionKeys?: readonly PartitionKeyValue[]): boolean;
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
  const grants = options.subscriptions === undefined ? undefined : compileGrants(options.subscriptions);
  const subscriptionDenial = (deviceId: string, table: string, partitionKeys?: readonly PartitionKeyValue[]): string | undefined => {
    if (!isAllowed(deviceId)) return `device ${deviceId} is not on the hub's allow-list`;
    if (!grants) return undefined;
    let whole = false;
    const values = new Set<string>();
    for (const g of grants) {
      if (!g.matches(deviceId)) continue;
      const granted = g.tables[table];
      if (granted === undefined) continue;
      if (granted === '*') whole = true;
      else for (const v of granted) values.add(keyString(v));
    }
    if (whole) return undefined;
    if (partitionKeys === undefined) return `device ${deviceId} may not subscribe to the whole table ${table}`;
    const denied = partitionKeys.map(keyString).filter((k) => !values.has(k));
    if (denied.length > 0) return `device ${deviceId} may not subscribe to ${table} partition key ${denied.map((k) => JSON.stringify(k)).join(', ')}`;
    return undefined;
  };
  return {
    isAllowed,
    subscriptionDenial,
    authorizeSubscription: (deviceId, table, partitionKeys) => subscriptionDenial(deviceId, table, partitionKeys) === undefined,
  };
}

function allowFilter(allow: AllowDevices | undefined): (deviceId: string) => boolean {
  if (allow === undefined) return () => true;
  if (typeof allow === 'function') return allow;
  if (!Array.isArray(allow)) throw new ValidationException('allowDevices must be a list of device patterns or a function');
  const matchers = allow.map(devicePattern);
  return (id) => matchers.some((m) => m(id));
}

function compileGrants(map: SubscriptionPermissions) {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) throw new ValidationException('subscriptions must map device patterns to { table: [partition key values] | "*" }');
  return Object.entries(map).map(([pattern, tables]) => {
    if (typeof tables !== 'object' || tables === null || Array.isArray(tables)) throw new ValidationException(`subscriptions[${JSON.stringify(pattern)}] must map table names to partition key values or "*"`);
    for (const [table, granted] of Object.entries(tables)) {
      if (granted !== '*' && !Array.isArray(granted)) throw new ValidationException(`subscriptions[${JSON.stringify(pattern)}][${JSON.stringify(table)}] must be a list of partition key values or "*"`);
      if (Array.isArray(granted)) granted.forEach(keyString); // validates each value now, not at the first subscription
    }
    return { matches: devicePattern(pattern), tables };
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

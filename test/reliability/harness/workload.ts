/**
 * The crash harness's workload, generated identically by the worker (which runs it) and the parent
 * (which replays it against a model to know what the store must hold). Op i of cycle c is a pure
 * function of (seed, c, the model before op i), so the parent can regenerate exactly the ops the
 * worker ran, including the ones in flight when it was killed, and their expected outcomes
 * (conditions are decided against the model, so a deliberately false condition is known to fail).
 *
 * Table `Crash`: pk S / sk N, 2 partitions, LSI byLsk (pk, lsk), GSI byG (g, gs) with INCLUDE ver,
 * change log NEW_AND_OLD_IMAGES. Every write stamps `ver` (cycle * 1e6 + op) and `w`; transaction
 * puts and updates also stamp `txn` with the op's id, so a partial transaction is visible.
 *
 * Table `Scratch` (pk sid, 2 partitions, GSI byG KEYS_ONLY) comes and goes: created, written, then
 * deleted with everything in it, so a cut lands inside CreateTable and DeleteTable too, and a
 * recovery that brought back a dropped database (a deleted table's partitions or index) or lost a
 * created one shows. Its items are in the model under `scratch/<sid>`, and `scratch/` itself
 * stands for the table existing.
 */
import { createRng, fnv1a, type Rng } from './rng.js';
import type { CreateTableInput } from '../../../src/api/table-operations.js';

export const TABLE = 'Crash';
export const SCRATCH_TABLE = 'Scratch';
/** The model's entry that stands for the Scratch table existing; its items follow the prefix. */
export const SCRATCH_EXISTS = 'scratch/';
const SCRATCH_KEYS = 10;
const PKS = 12;
const SKS = 6;
/** Ops a worker runs per cycle before it idles (the parent kills it anyway). */
export const MAX_OPS_PER_CYCLE = 400;

export type Scalar = { S: string } | { N: string };
export type Item = Record<string, Scalar>;
export type Key = { pk: { S: string }; sk: { N: string } };
export type Model = Map<string, Item>;

type Update = { key: Key; set: Item; remove: string[] };
type Check = { key: Key; ver: string | null; holds: boolean };

export type Op =
  | { kind: 'put'; item: Item }
  | { kind: 'update'; update: Update }
  | { kind: 'delete'; key: Key; conditional: boolean }
  | { kind: 'batch'; puts: Item[]; deletes: Key[] }
  | { kind: 'txn'; id: string; puts: Item[]; updates: Update[]; deletes: Key[]; checks: Check[] }
  | { kind: 'scratchCreate' }
  | { kind: 'scratchWrite'; puts: Item[] }
  | { kind: 'scratchDelete' };

export type OpKind = Op['kind'];

export function createTableRequest(): CreateTableInput {
  const S = (n: string) => ({ AttributeName: n, AttributeType: 'S' as const });
  const N = (n: string) => ({ AttributeName: n, AttributeType: 'N' as const });
  return {
    TableName: TABLE,
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: 2,
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [S('pk'), N('sk'), S('lsk'), S('g'), N('gs')],
    LocalSecondaryIndexes: [
      {
        IndexName: 'byLsk',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'lsk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: 'byG',
        KeySchema: [
          { AttributeName: 'g', KeyType: 'HASH' },
          { AttributeName: 'gs', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['ver'] },
      },
    ],
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  };
}

export function keyString(item: Item | Key): string {
  if ('sid' in item) return scratchKey(item as Item);
  return `${(item.pk as { S: string }).S}#${(item.sk as { N: string }).N}`;
}

export function scratchKey(item: Item): string {
  return `${SCRATCH_EXISTS}${(item.sid as { S: string }).S}`;
}

/** Whether a model key belongs to the Scratch table (its items, or the entry for the table itself). */
export function isScratch(key: string): boolean {
  return key.startsWith(SCRATCH_EXISTS);
}

export function createScratchRequest(): CreateTableInput {
  return {
    TableName: SCRATCH_TABLE,
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: 2,
    KeySchema: [{ AttributeName: 'sid', KeyType: 'HASH' }],
    AttributeDefinitions: [
      { AttributeName: 'sid', AttributeType: 'S' },
      { AttributeName: 'g', AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [{ IndexName: 'byG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
  };
}

/** The model's entry for the Scratch table existing (a `w` like every item, for reports). */
export const SCRATCH_TABLE_ENTRY: Item = { w: { S: 'the Scratch table' } };

/** Attribute order does not matter to DynamoDB; the canonical form sorts names. */
export function canonical(item: Item | undefined): string {
  if (item === undefined) return '-';
  return JSON.stringify(Object.keys(item).sort().map((k) => [k, item[k]]));
}

/** The ops of one cycle, in order, each generated against the model the ops before it left. */
export class Workload {
  private readonly rng: Rng;
  private index = 0;

  constructor(
    readonly seed: number,
    readonly cycle: number,
  ) {
    this.rng = createRng(fnv1a(`${seed}:${cycle}`));
  }

  /** The next op and its expected outcome; applies it to `model` when it is expected to succeed. */
  next(model: Model): { op: Op; ok: boolean; changed: string[]; previous: Map<string, Item | undefined>; fingerprint: number } {
    const op = this.generate(model, this.index);
    this.index += 1;
    const ok = expectedOutcome(model, op);
    const previous = new Map<string, Item | undefined>();
    const changed = ok ? applyOp(model, op, previous) : [];
    return { op, ok, changed, previous, fingerprint: fnv1a(JSON.stringify(op)) };
  }

  private generate(model: Model, i: number): Op {
    const r = this.rng;
    const stamp = String(this.cycle * 1_000_000 + i);
    const w = `${this.cycle}.${i}`;
    const roll = r.next();
    if (roll < 0.3) return { kind: 'put', item: this.item(this.key(), stamp, w) };
    if (roll < 0.55) return { kind: 'update', update: this.update(this.key(), stamp, w) };
    if (roll < 0.7) return { kind: 'delete', key: this.key(), conditional: r.chance(0.5) };
    if (roll >= 0.94) {
      if (!model.has(SCRATCH_EXISTS)) return { kind: 'scratchCreate' };
      if (r.chance(0.15)) return { kind: 'scratchDelete' };
      const puts = new Map<string, Item>();
      for (let n = 1 + r.int(6); n > 0; n--) {
        const item = this.scratchItem(stamp, w);
        puts.set(scratchKey(item), item); // BatchWriteItem refuses two requests for one key
      }
      return { kind: 'scratchWrite', puts: [...puts.values()] };
    }
    const keys = this.distinctKeys(roll < 0.85 ? 2 + r.int(14) : 2 + r.int(5));
    if (roll < 0.85) {
      const puts: Item[] = [];
      const deletes: Key[] = [];
      for (const k of keys) {
        if (r.chance(0.75)) puts.push(this.item(k, stamp, w));
        else deletes.push(k);
      }
      return { kind: 'batch', puts, deletes };
    }
    const id = `t${w}`;
    const txn: Extract<Op, { kind: 'txn' }> = { kind: 'txn', id, puts: [], updates: [], deletes: [], checks: [] };
    for (const k of keys) {
      const a = r.int(4);
      if (a === 0) txn.puts.push({ ...this.item(k, stamp, w), txn: { S: id } });
      else if (a === 1) {
        const u = this.update(k, stamp, w);
        txn.updates.push({ ...u, set: { ...u.set, txn: { S: id } } });
      } else if (a === 2) txn.deletes.push(k);
      else {
        const current = model.get(keyString(k));
        const holds = r.chance(0.85);
        const ver = current === undefined ? null : (current.ver as { N: string }).N;
        txn.checks.push({ key: k, ver: holds ? ver : ver === null ? '0' : `-${ver}`, holds });
      }
    }
    if (txn.puts.length + txn.updates.length + txn.deletes.length === 0) {
      // Only condition checks were drawn: the first key's check becomes a put (one action per item).
      const first = keys[0]!;
      txn.checks = txn.checks.filter((c) => keyString(c.key) !== keyString(first));
      txn.puts.push({ ...this.item(first, stamp, w), txn: { S: id } });
    }
    return txn;
  }

  private key(): Key {
    return { pk: { S: `p${this.rng.int(PKS)}` }, sk: { N: String(this.rng.int(SKS)) } };
  }

  private distinctKeys(n: number): Key[] {
    const seen = new Map<string, Key>();
    while (seen.size < n) {
      const k = this.key();
      seen.set(keyString(k), k);
    }
    return [...seen.values()];
  }

  private item(key: Key, stamp: string, w: string): Item {
    const r = this.rng;
    const item: Item = { ...key, ver: { N: stamp }, w: { S: w } };
    if (r.chance(0.85)) item.lsk = { S: `l${r.int(20)}` };
    if (r.chance(0.8)) {
      item.g = { S: `g${r.int(5)}` };
      if (r.chance(0.9)) item.gs = { N: String(r.int(1000)) };
    }
    const pad = r.chance(0.05) ? 6000 + r.int(6000) : r.int(600);
    if (pad > 0) item.pad = { S: w.padEnd(pad, String.fromCharCode(97 + r.int(26))) };
    return item;
  }

  private scratchItem(stamp: string, w: string): Item {
    const r = this.rng;
    const item: Item = { sid: { S: `s${r.int(SCRATCH_KEYS)}` }, ver: { N: stamp }, w: { S: w } };
    if (r.chance(0.7)) item.g = { S: `g${r.int(3)}` };
    const pad = r.int(800);
    if (pad > 0) item.pad = { S: w.padEnd(pad, 'x') };
    return item;
  }

  private update(key: Key, stamp: string, w: string): Update {
    const r = this.rng;
    const set: Item = { ver: { N: stamp }, w: { S: w } };
    const remove: string[] = [];
    if (r.chance(0.7)) set.lsk = { S: `l${r.int(20)}` };
    else if (r.chance(0.3)) remove.push('lsk');
    const g = r.int(4);
    if (g === 0) remove.push('g');
    else if (g === 1) set.g = { S: `g${r.int(5)}` };
    else if (g === 2) set.gs = { N: String(r.int(1000)) };
    if (r.chance(0.2)) remove.push('pad');
    return { key, set, remove };
  }
}

function expectedOutcome(model: Model, op: Op): boolean {
  if (op.kind === 'delete') return !op.conditional || model.has(keyString(op.key));
  if (op.kind === 'txn') return op.checks.every((c) => c.holds);
  return true;
}

/** Applies a successful op; returns the keys it touched and records their prior items. */
function applyOp(model: Model, op: Op, previous: Map<string, Item | undefined>): string[] {
  const remember = (k: string): void => {
    if (!previous.has(k)) previous.set(k, model.get(k));
  };
  const put = (item: Item): string => {
    const k = keyString(item);
    remember(k);
    model.set(k, { ...item });
    return k;
  };
  const del = (key: Key): string => {
    const k = keyString(key);
    remember(k);
    model.delete(k);
    return k;
  };
  const update = (u: Update): string => {
    const k = keyString(u.key);
    remember(k);
    const next: Item = { ...(model.get(k) ?? u.key), ...u.set };
    for (const name of u.remove) delete next[name];
    model.set(k, next);
    return k;
  };
  switch (op.kind) {
    case 'scratchCreate':
      remember(SCRATCH_EXISTS);
      model.set(SCRATCH_EXISTS, SCRATCH_TABLE_ENTRY);
      return [SCRATCH_EXISTS];
    case 'scratchWrite':
      return op.puts.map(put);
    case 'scratchDelete':
      return [...model.keys()].filter(isScratch).map((k) => {
        remember(k);
        model.delete(k);
        return k;
      });
    case 'put':
      return [put(op.item)];
    case 'update':
      return [update(op.update)];
    case 'delete':
      return [del(op.key)];
    case 'batch':
      return [...op.puts.map(put), ...op.deletes.map(del)];
    case 'txn':
      return [...op.puts.map(put), ...op.updates.map(update), ...op.deletes.map(del)];
  }
}

/** The DynamoDB request that performs `op`, and the exception it fails with when expected to. */
export function toRequest(op: Op): { operation: string; request: Record<string, unknown>; rejection?: string } {
  switch (op.kind) {
    case 'scratchCreate':
      return { operation: 'CreateTable', request: createScratchRequest() as unknown as Record<string, unknown> };
    case 'scratchWrite':
      return { operation: 'BatchWriteItem', request: { RequestItems: { [SCRATCH_TABLE]: op.puts.map((Item) => ({ PutRequest: { Item } })) } } };
    case 'scratchDelete':
      return { operation: 'DeleteTable', request: { TableName: SCRATCH_TABLE } };
    case 'put':
      return { operation: 'PutItem', request: { TableName: TABLE, Item: op.item } };
    case 'update':
      return { operation: 'UpdateItem', request: { TableName: TABLE, ...updateRequest(op.update) } };
    case 'delete':
      return {
        operation: 'DeleteItem',
        request: { TableName: TABLE, Key: op.key, ...(op.conditional ? { ConditionExpression: 'attribute_exists(pk)' } : {}) },
        rejection: 'ConditionalCheckFailedException',
      };
    case 'batch':
      return {
        operation: 'BatchWriteItem',
        request: {
          RequestItems: {
            [TABLE]: [...op.puts.map((Item) => ({ PutRequest: { Item } })), ...op.deletes.map((Key) => ({ DeleteRequest: { Key } }))],
          },
        },
      };
    case 'txn':
      return {
        operation: 'TransactWriteItems',
        request: {
          TransactItems: [
            ...op.puts.map((Item) => ({ Put: { TableName: TABLE, Item } })),
            ...op.updates.map((u) => ({ Update: { TableName: TABLE, ...updateRequest(u) } })),
            ...op.deletes.map((Key) => ({ Delete: { TableName: TABLE, Key } })),
            ...op.checks.map((c) => ({
              ConditionCheck: {
                TableName: TABLE,
                Key: c.key,
                ...(c.ver === null
                  ? { ConditionExpression: 'attribute_not_exists(pk)' }
                  : { ConditionExpression: 'ver = :v', ExpressionAttributeValues: { ':v': { N: c.ver } } }),
              },
            })),
          ],
        },
        rejection: 'TransactionCanceledException',
      };
  }
}

function updateRequest(u: Update): Record<string, unknown> {
  const names: Record<string, string> = {};
  const values: Record<string, Scalar> = {};
  const sets = Object.entries(u.set).map(([name, value], i) => {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removes = u.remove.map((name, i) => {
    names[`#r${i}`] = name;
    return `#r${i}`;
  });
  return {
    Key: u.key,
    UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** The crash worker's syncIntervalMs in 'interval' durability; the parent's loss bound reads it too. */
export function crashSyncIntervalMs(): number {
  return Number(process.env.CRASH_SYNC_INTERVAL_MS ?? 100);
}

/**
 * The device side of the down direction (docs/sync.md, "Down: hub to devices"). On every connect
 * it sends its subscriptions (table, direction, partition keys, its TableId of the table), retained
 * so that a hub starting later receives them too; then it
 * applies what the hub sends, one message at a time, each in one txn committed off the event loop
 * (store.writeAsync), and acknowledges once the commit is durable; onMessage's promise settles
 * then, and the link hands over the next message only after it (mqtt-link.ts):
 * - schema: the hub table's definition. A table the device does not have is created from it
 *   (indexes included) and marked synced (its writes keep version records); a table whose key
 *   schema differs is a conflict: reported in status and to the hub, nothing is applied.
 * - changes: records applied by last-writer-wins (apply-down.ts); pages of a base read are marked.
 * - base done: the subscribed partitions become exactly what the base held (sweep-base.ts).
 * - refused: the hub does not allow the subscription; reported in status and lastError.
 * The device keeps no down cursor: the hub keeps it, moved by these acks. A table the device asked
 * to re-read (a salvaged store, replication/rebase-marks.ts) is subscribed without its TableId
 * until a base read of it completes: the hub starts one for a copy it does not know.
 */
import { encodePartitionPrefix } from '../codec/item-key.js';
import type { Edgetable } from '../edgetable.js';
import type { KeyValue } from '../model/attribute-value.js';
import { parseNumber } from '../model/number.js';
import type { ReplicaTable } from '../replication/replica-types.js';
import { decodeDownMessage, encodeDownAck, encodeSubscription, toWirePartitionKey, type DownAckStatus, type DownMessage, type PartitionKeyValue } from './protocol/down-messages.js';
import type { TableSchema } from './protocol/table-schema.js';
import type { Topics } from './protocol/topics.js';

export type DownTableStatus = {
  readonly table: string;
  readonly direction: 'down' | 'both';
  readonly partitionKeys?: readonly PartitionKeyValue[];
  /** subscribing: sent, nothing heard yet; base: re-reading the subscribed partitions whole; delta: following the hub's log. */
  readonly state: 'subscribing' | 'base' | 'delta' | 'refused' | 'conflict';
  readonly recordsApplied: number;
  /** Records not applied because the device's version of the item was newer or the same. */
  readonly recordsSuperseded: number;
  readonly basePages: number;
  readonly basesCompleted: number;
  /** Items dropped at the end of a base read (absent at the hub). */
  readonly itemsSwept: number;
  readonly lastMessage?: string;
};

export type DownAgentOptions = {
  readonly deviceId: string;
  readonly incarnation: string;
  readonly topics: Topics;
  readonly tables: ReadonlyMap<string, { readonly direction: 'down' | 'both'; readonly partitionKeys?: readonly PartitionKeyValue[] }>;
  readonly maxClockDriftMs: number;
  readonly publish: (topic: string, payload: Uint8Array, retain?: boolean) => boolean;
  /** Marks a table synced (with version records), as the sync agent does for its tables. */
  readonly enable: (table: ReplicaTable) => void;
  readonly onError: (message: string) => void;
};

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class DownAgent {
  private readonly states = new Map<string, Mutable<DownTableStatus>>();
  private waiters: { resolve: () => void }[] = [];
  clockRefused = 0;
  /** Send the subscription again after the ack of the message being handled. */
  private resubscribe = false;

  constructor(
    private readonly db: Edgetable,
    private readonly o: DownAgentOptions,
  ) {
    for (const [table, spec] of o.tables) {
      this.states.set(table, { table, direction: spec.direction, ...(spec.partitionKeys ? { partitionKeys: spec.partitionKeys } : {}), state: 'subscribing', recordsApplied: 0, recordsSuperseded: 0, basePages: 0, basesCompleted: 0, itemsSwept: 0 });
    }
  }

  status(): DownTableStatus[] {
    return [...this.states.values()].map((s) => ({ ...s }));
  }

  /** Resolves once every subscribed table exists here and follows the hub's log (its base read, if any, is done). */
  caughtUp(): Promise<void> {
    if (this.isCaughtUp()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ resolve }));
  }

  /** Sends the subscriptions; called on every (re)connect. */
  onOnline(): void {
    for (const s of this.states.values()) s.state = 'subscribing';
    this.publishSubscription();
  }

  /**
   * Retained: a hub that starts (or restarts) later learns the subscription from the broker. Sent
   * again once a table was created from the hub's definition, so the retained copy names its
   * TableId (a hub that restarts then resumes from its cursor instead of starting a base read).
   */
  private publishSubscription(): void {
    const tables = [...this.o.tables].map(([table, spec]) => {
      const local = this.db.replica.table(table);
      return {
        table,
        direction: spec.direction,
        ...(spec.partitionKeys ? { partitionKeys: spec.partitionKeys.map(toWirePartitionKey) } : {}),
        // A copy the device asked to re-read (a salvaged store, replication/rebase-marks.ts) is
        // announced as no copy: the hub answers a subscription without a TableId with a base read.
        ...(local && !this.db.replica.rebaseRequested(table) ? { tableId: local.def.TableId } : {}),
      };
    });
    this.o.publish(this.o.topics.downSubscribe(this.o.deviceId), encodeSubscription({ incarnation: this.o.incarnation, tables }), true);
  }

  /** Resolves once the message is applied and acknowledged (or refused); never rejects. */
  async onMessage(payload: Uint8Array): Promise<void> {
    let message: DownMessage;
    try {
      message = decodeDownMessage(payload);
    } catch (err) {
      this.o.onError(`malformed down message: ${(err as Error).message}`);
      return;
    }
    const state = this.states.get(message.table);
    if (!state) return;
    if (message.kind === 'refused') {
      state.state = 'refused';
      state.lastMessage = message.message;
      this.o.onError(`hub refused the subscription to ${message.table}: ${message.message}`);
      return;
    }
    let status: DownAckStatus = 'applied';
    let reply = '';
    const existed = this.db.replica.table(message.table) !== undefined;
    try {
      ({ status, reply } = await this.handle(message, state));
    } catch (err) {
      status = 'retry';
      reply = (err as Error).message;
      state.lastMessage = reply;
      this.o.onError(`applying down ${message.kind} of ${message.table}: ${reply}`);
    }
    this.o.publish(this.o.topics.downAck(this.o.deviceId), encodeDownAck({ incarnation: this.o.incarnation, table: message.table, id: message.id, status, message: reply }));
    if (this.resubscribe || (!existed && this.db.replica.table(message.table) !== undefined)) {
      this.resubscribe = false;
      this.publishSubscription();
    }
    this.settle();
  }

  private async handle(message: Exclude<DownMessage, { kind: 'refused' }>, state: Mutable<DownTableStatus>): Promise<{ status: DownAckStatus; reply: string }> {
    if (message.kind === 'schema') return this.onSchema(message.schema, state);
    const table = this.db.replica.table(message.table);
    if (!table) return { status: 'retry', reply: `no table ${message.table} on the device yet` };
    if (state.state === 'conflict') return { status: 'conflict', reply: state.lastMessage ?? 'key schema conflict' };
    const baseId = message.baseId;
    // A hub may send one base twice: a device that comes back is subscribed to its down topic
    // before the hub has its new subscription, so it may still receive what the hub sent its
    // previous session, and a device that crashed before the hub had its base-done ack gets that
    // again. The base read the table last completed is on disk (down-records.ts): a repeat of it
    // changes nothing and is only acked.
    if (baseId !== undefined && this.db.replica.baseDone(message.table, baseId)) return { status: 'applied', reply: '' };
    if (message.kind === 'base-done') {
      // A failed sweep is retried whole: the base is recorded done only by its last txn.
      const rebase = this.db.replica.rebaseRequested(table.name);
      const swept = await this.db.replica.sweepBase(table.name, message.baseId, this.prefixes(table, state), { device: this.o.deviceId, incarnation: this.o.incarnation });
      state.itemsSwept += swept;
      state.basesCompleted += 1;
      state.state = 'delta';
      // The re-read is done (the sweep cleared the request): once the ack is out, the retained
      // subscription names the TableId again, so a hub that restarts resumes from its cursor.
      if (rebase) this.resubscribe = true;
      return { status: 'applied', reply: '' };
    }
    const result = await this.db.replica.applyDown(table.name, message.entries, { maxDriftMs: this.o.maxClockDriftMs, ...(message.baseId !== undefined ? { baseId: message.baseId } : {}) });
    state.recordsApplied += result.applied;
    state.recordsSuperseded += result.superseded;
    this.clockRefused += result.clockRefused;
    if (message.baseId !== undefined) {
      state.basePages += 1;
      state.state = 'base';
    } else {
      state.state = 'delta';
    }
    return { status: 'applied', reply: '' };
  }

  /** Creates the table from the hub's definition, or checks the device's against it. */
  private onSchema(body: string, state: Mutable<DownTableStatus>): { status: DownAckStatus; reply: string } {
    const { table: schema, phase } = JSON.parse(body) as { table: TableSchema; phase: 'base' | 'delta' };
    let table = this.db.replica.table(schema.TableName);
    if (table && JSON.stringify(table.def.KeySchema) !== JSON.stringify(schema.KeySchema)) {
      const reply = `the device's table ${schema.TableName} has key schema ${JSON.stringify(table.def.KeySchema)}, the hub's ${JSON.stringify(schema.KeySchema)}`;
      state.state = 'conflict';
      state.lastMessage = reply;
      this.o.onError(reply);
      return { status: 'conflict', reply };
    }
    if (!table) {
      const { version: _v, ...request } = schema;
      this.db.execute('CreateTable', { ...request, BillingMode: 'PAY_PER_REQUEST' } as never);
      table = this.db.replica.table(schema.TableName)!;
    }
    this.o.enable(table);
    state.state = phase;
    return { status: 'applied', reply: table.def.TableId };
  }

  private prefixes(table: ReplicaTable, state: DownTableStatus): Uint8Array[] | undefined {
    return state.partitionKeys?.map((k) => encodePartitionPrefix(localKeyValue(table, k)).bytes);
  }

  private isCaughtUp(): boolean {
    return [...this.states.values()].every((s) => s.state === 'delta');
  }

  private settle(): void {
    if (this.waiters.length === 0 || !this.isCaughtUp()) return;
    for (const w of this.waiters.splice(0)) w.resolve();
  }
}

function localKeyValue(table: ReplicaTable, value: PartitionKeyValue): KeyValue {
  const { name, type } = table.partitionKey;
  if (type === 'S' && typeof value === 'string') return { S: value };
  if (type === 'N' && (typeof value === 'number' || typeof value === 'string')) return { N: parseNumber(String(value)) };
  if (type === 'B' && value instanceof Uint8Array) return { B: value };
  throw new Error(`partition key ${name} of ${table.name} is of type ${type}: ${String(value)} does not fit`);
}

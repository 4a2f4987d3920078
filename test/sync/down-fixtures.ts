/** Shared pieces of the two-way sync tests: the WorkOrders table (with an index), a hub and devices on one broker. */
import { randomUUID } from 'node:crypto';
import type { Edgetable } from '../../src/edgetable.js';
import { startHub, type Hub, type HubOptions } from '../../src/hub/start-hub.js';
import type { SyncHandle, SyncOptions } from '../../src/sync/sync-options.js';
import { tempDb, type Cleanup } from './fixtures.js';

export function createWorkOrders(db: Edgetable, partitions = 2): void {
  db.createTable({
    TableName: 'WorkOrders',
    KeySchema: [
      { AttributeName: 'site', KeyType: 'HASH' },
      { AttributeName: 'job', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'site', AttributeType: 'S' },
      { AttributeName: 'job', AttributeType: 'S' },
      { AttributeName: 'state', AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [{ IndexName: 'byState', KeySchema: [{ AttributeName: 'state', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: partitions,
  });
}

export function putOrder(db: Edgetable, site: string, job: string, state: string, extra: Record<string, { S: string }> = {}): void {
  db.putItem({ TableName: 'WorkOrders', Item: { site: { S: site }, job: { S: job }, state: { S: state }, ...extra } });
}

export function getOrder(db: Edgetable, site: string, job: string): Record<string, unknown> | undefined {
  if (!db.context.catalog.find('WorkOrders')) return undefined;
  return db.getItem({ TableName: 'WorkOrders', Key: { site: { S: site }, job: { S: job } } }).Item as Record<string, unknown> | undefined;
}

/** Items of one site, as sorted JSON lines. */
export function siteContents(db: Edgetable, site: string): string[] {
  if (!db.context.catalog.find('WorkOrders')) return [];
  const out: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = db.execute('Query', { TableName: 'WorkOrders', KeyConditionExpression: 'site = :s', ExpressionAttributeValues: { ':s': { S: site } }, ...(start ? { ExclusiveStartKey: start } : {}) }) as {
      Items: Record<string, unknown>[];
      LastEvaluatedKey?: Record<string, unknown>;
    };
    for (const item of page.Items) out.push(JSON.stringify(Object.keys(item).sort().map((k) => [k, item[k]])));
    start = page.LastEvaluatedKey;
  } while (start);
  return out.sort();
}

/** A namespace of its own per test, so tests sharing a broker (Mosquitto) never see each other's topics or retained schemas. */
export function uniqueNamespace(): string {
  return `et-test-${randomUUID().slice(0, 8)}`;
}

export function hubAt(cleanups: Cleanup[], url: string, namespace: string, options: Partial<HubOptions> = {}): { hub: Hub; db: Edgetable; path: string } {
  const store = options.path ? undefined : tempDb(cleanups, 'etb-hub-');
  const hub = startHub({ ...(store ? { db: store.db } : {}), url, namespace, clientId: `hub-${randomUUID().slice(0, 8)}`, downPollMs: 10, ...options });
  cleanups.push(() => hub.stop());
  return { hub, db: store?.db as Edgetable, path: store?.path ?? options.path! };
}

export async function deviceSync(cleanups: Cleanup[], db: Edgetable, url: string, namespace: string, deviceId: string, tables: SyncOptions['tables'], extra: Partial<Omit<SyncOptions, 'db'>> = {}): Promise<SyncHandle> {
  const sync = await db.startSync({ url, deviceId, namespace, tables, clientId: `${deviceId}-${randomUUID().slice(0, 8)}`, ...extra });
  cleanups.push(() => sync.stop());
  return sync;
}

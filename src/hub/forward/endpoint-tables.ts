/**
 * Creates a hub table at the endpoint (key schema only, on-demand; indexes are not copied), or
 * checks that the endpoint's table has the same key schema: the same attribute names, key types
 * and scalar types. A table still CREATING is waited for. A mismatch is returned, not thrown: the
 * forwarder reports it in status and leaves that table alone.
 */
import type { TableDefinition } from '../../replication/replica-types.js';
import { pause } from './backoff.js';
import type { EndpointClient } from './endpoint-client.js';

export type TableCheck = { readonly ok: true } | { readonly ok: false; readonly mismatch: string };

const ACTIVE_WAIT_MS = 60_000;

export async function ensureEndpointTable(client: EndpointClient, def: TableDefinition, signal: AbortSignal): Promise<TableCheck> {
  const want = keyShape(def.KeySchema, def.AttributeDefinitions);
  let table = await client.describeTable(def.TableName);
  if (!table) {
    const keyNames = new Set(def.KeySchema.map((k) => k.AttributeName));
    try {
      await client.createTable({
        TableName: def.TableName,
        KeySchema: def.KeySchema.map((k) => ({ AttributeName: k.AttributeName, KeyType: k.KeyType })),
        AttributeDefinitions: def.AttributeDefinitions.filter((a) => keyNames.has(a.AttributeName)).map((a) => ({ AttributeName: a.AttributeName, AttributeType: a.AttributeType })),
        BillingMode: 'PAY_PER_REQUEST',
      });
    } catch (err) {
      if ((err as Error).name !== 'ResourceInUseException') throw err; // created meanwhile: checked below
    }
    table = await client.describeTable(def.TableName);
  }
  const deadline = Date.now() + ACTIVE_WAIT_MS;
  while (table && table.TableStatus !== 'ACTIVE' && Date.now() < deadline && !signal.aborted) {
    await pause(100, signal);
    table = await client.describeTable(def.TableName);
  }
  if (!table) throw new Error(`table ${def.TableName} not found at the endpoint after creating it`);
  if (table.TableStatus !== 'ACTIVE') throw new Error(`table ${def.TableName} is ${table.TableStatus} at the endpoint`);
  const have = keyShape(table.KeySchema ?? [], table.AttributeDefinitions ?? []);
  if (have !== want) return { ok: false, mismatch: `the endpoint's ${def.TableName} has key schema ${have}, the hub's has ${want}` };
  return { ok: true };
}

/** `HASH sensor S, RANGE ts N`: names, key types and scalar types, in key order. */
function keyShape(
  keySchema: readonly { AttributeName?: string | undefined; KeyType?: string | undefined }[],
  attributes: readonly { AttributeName?: string | undefined; AttributeType?: string | undefined }[],
): string {
  const types = new Map(attributes.map((a) => [a.AttributeName, a.AttributeType]));
  return keySchema.map((k) => `${k.KeyType} ${k.AttributeName} ${types.get(k.AttributeName) ?? '?'}`).join(', ');
}

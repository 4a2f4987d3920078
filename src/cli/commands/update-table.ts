/**
 * `update-table <table>`: UpdateTable from a request file or from flags (billing mode,
 * throughput, one GSI created or deleted). A created GSI is backfilled by this process, which
 * waits for it with progress on stderr (by partition of the base table) unless --no-wait; an
 * interrupted backfill resumes when a process next opens the store for writing.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Edgetable } from '../../edgetable.js';
import { keyAttribute, positiveInteger, type KeyAttribute } from '../arguments.js';
import { CliError, UsageError, type CliIo } from '../cli-io.js';
import { startProgress } from '../progress.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, withDb } from '../with-db.js';

const BACKFILL_POLL_MS = 100;

type UpdateTableOptions = PathOption & {
  file?: string;
  billing?: string;
  read?: number;
  write?: number;
  createGsi?: string;
  gsiHash?: KeyAttribute;
  gsiRange?: KeyAttribute;
  projection: string;
  deleteGsi?: string;
  wait: boolean;
};

export function registerUpdateTable(program: Command, io: CliIo): void {
  storeCommand(program, 'update-table')
    .description("change a table's billing mode or throughput, or create or delete a GSI (UpdateTable)")
    .argument('<table>', 'table name')
    .option('--file <request.json>', 'an UpdateTable request in JSON (its TableName is replaced by <table>)')
    .option('--billing <mode>', 'PAY_PER_REQUEST or PROVISIONED')
    .option('--read <units>', 'provisioned read capacity units', positiveInteger)
    .option('--write <units>', 'provisioned write capacity units', positiveInteger)
    .option('--create-gsi <index>', 'create a global secondary index (with --gsi-hash)')
    .option('--gsi-hash <name:type>', "the new index's partition key, e.g. site:S", keyAttribute)
    .option('--gsi-range <name:type>', "the new index's sort key, e.g. ts:N", keyAttribute)
    .option('--projection <kind>', 'ALL, KEYS_ONLY, or INCLUDE:attr1,attr2', 'ALL')
    .option('--delete-gsi <index>', 'delete a global secondary index')
    .option('--no-wait', 'return without waiting for a new index to be backfilled')
    .action(async (table: string, options: UpdateTableOptions) => {
      await withDb(options.path, async (db) => {
        const request = options.file !== undefined ? requestFromFile(options.file, table) : requestFromFlags(db, table, options);
        const response = db.execute('UpdateTable', request);
        const created = createdIndexes(request);
        if (options.wait && created.length > 0) await waitForBackfill(db, table, created, io);
        printJson(io.out, options.wait && created.length > 0 ? { TableDescription: db.describeTable({ TableName: table }).Table } : response);
      });
    });
}

function requestFromFile(file: string, table: string): Record<string, unknown> {
  let request: Record<string, unknown>;
  try {
    request = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new CliError('InvalidFile', `${file}: ${(error as Error).message}`);
  }
  return { ...request, TableName: table };
}

function requestFromFlags(db: Edgetable, table: string, o: UpdateTableOptions): Record<string, unknown> {
  if ((o.read === undefined) !== (o.write === undefined)) throw new UsageError('--read and --write go together');
  if (o.createGsi !== undefined && o.deleteGsi !== undefined) throw new UsageError('one index change per update: --create-gsi or --delete-gsi');
  if (o.createGsi !== undefined && o.gsiHash === undefined) throw new UsageError('--create-gsi needs --gsi-hash <name:type>');
  if (o.createGsi === undefined && (o.gsiHash !== undefined || o.gsiRange !== undefined)) throw new UsageError('--gsi-hash and --gsi-range go with --create-gsi');
  const throughput = o.read === undefined ? undefined : { ReadCapacityUnits: o.read, WriteCapacityUnits: o.write };
  const request: Record<string, unknown> = {
    TableName: table,
    ...(o.billing !== undefined && { BillingMode: o.billing }),
    ...(throughput !== undefined && { ProvisionedThroughput: throughput }),
  };
  if (o.deleteGsi !== undefined) request.GlobalSecondaryIndexUpdates = [{ Delete: { IndexName: o.deleteGsi } }];
  if (o.createGsi !== undefined) {
    const keys = o.gsiRange === undefined ? [o.gsiHash!] : [o.gsiHash!, o.gsiRange];
    const def = db.describeTable({ TableName: table }).Table as { BillingMode?: string; BillingModeSummary?: { BillingMode?: string }; ProvisionedThroughput: { ReadCapacityUnits: number; WriteCapacityUnits: number } };
    const billing = o.billing ?? def.BillingModeSummary?.BillingMode ?? 'PROVISIONED';
    // On a provisioned table the index needs throughput: --read/--write, else the table's own.
    const indexThroughput = throughput ?? { ReadCapacityUnits: def.ProvisionedThroughput.ReadCapacityUnits, WriteCapacityUnits: def.ProvisionedThroughput.WriteCapacityUnits };
    request.AttributeDefinitions = keys.map((k) => ({ AttributeName: k.name, AttributeType: k.type }));
    request.GlobalSecondaryIndexUpdates = [
      {
        Create: {
          IndexName: o.createGsi,
          KeySchema: keys.map((k, i) => ({ AttributeName: k.name, KeyType: i === 0 ? 'HASH' : 'RANGE' })),
          Projection: projection(o.projection),
          ...(billing === 'PROVISIONED' && { ProvisionedThroughput: indexThroughput }),
        },
      },
    ];
  }
  return request;
}

function projection(text: string): Record<string, unknown> {
  if (text === 'ALL' || text === 'KEYS_ONLY') return { ProjectionType: text };
  const m = /^INCLUDE:(.+)$/.exec(text);
  if (!m) throw new UsageError(`--projection is ALL, KEYS_ONLY or INCLUDE:attr1,attr2, not ${text}`);
  return { ProjectionType: 'INCLUDE', NonKeyAttributes: m[1]!.split(',') };
}

function createdIndexes(request: Record<string, unknown>): string[] {
  const updates = (request.GlobalSecondaryIndexUpdates ?? []) as { Create?: { IndexName?: unknown } }[];
  return updates.flatMap((u) => (typeof u.Create?.IndexName === 'string' ? [u.Create.IndexName] : []));
}

/** Waits until the created indexes are ACTIVE, drawing progress by base-table partition. */
async function waitForBackfill(db: Edgetable, table: string, indexes: readonly string[], io: CliIo): Promise<void> {
  const partitions = () => db.context.catalog.require(table).def.partitions.length;
  const progress = startProgress(io, `backfill ${indexes.join(', ')}`, { unit: 'partitions', total: partitions() });
  const done = new Promise<void>((resolve) => void db.whenIndexesActive().then(resolve));
  let finished = false;
  void done.then(() => {
    finished = true;
  });
  while (!finished) {
    const def = db.context.catalog.require(table).def;
    const cursors = def.GlobalSecondaryIndexes.filter((ix) => indexes.includes(ix.IndexName) && ix.backfill !== undefined).map((ix) => ix.backfill!.partition);
    progress.update(cursors.length === 0 ? partitions() : Math.min(...cursors), partitions());
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, BACKFILL_POLL_MS))]);
  }
  progress.end(partitions());
}

/**
 * `doctor`: key-design and throughput warnings, each with the figures that show it
 * (DynamoDB's partition guidance, spec §5.7-§5.8):
 * - a partition key with few distinct values (a table of up to SAMPLE_ITEMS items read whole, a
 *   larger one sampled at SAMPLE_SEGMENTS points across the hash space): every request for one
 *   value goes to one partition, so the table cannot use more than values x ceiling;
 * - hot partitions: one partition holding or serving far more than its share;
 * - item collections (tables with LSIs) near their size limit, among the sampled keys;
 * - provisioned throughput that the table's partitions cannot serve (each tops out at the ceiling).
 * Usage figures exist only in the process serving requests; run from the CLI, the hot-partition
 * check uses stored bytes. Exit code 0 whether or not there are warnings.
 */
import type { Command } from 'commander';
import type { Edgetable } from '../../edgetable.js';
import type { KeyValue } from '../../model/attribute-value.js';
import { PARTITION_READ_UNITS, PARTITION_WRITE_UNITS } from '../../model/limits.js';
import { validateItem } from '../../model/validate-attribute-value.js';
import { readCollectionBytes } from '../../table/item-collections.js';
import type { CliIo } from '../cli-io.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { itemCount, printJson, withDb } from '../with-db.js';

export const SAMPLE_ITEMS = 1000;
/** Points of the hash space sampled (one item each) in a table larger than SAMPLE_ITEMS. */
export const SAMPLE_SEGMENTS = 1000;
/** Fewer distinct values than this (and under a tenth of the sampled items) is a poor partition key. */
const FEW_VALUES = 10;
const MIN_ITEMS_FOR_KEY_CHECK = 50;
/** A partition is hot when it holds or serves more than twice its fair share (and over half). */
const HOT_SHARE = 2;
const COLLECTION_WARN_FRACTION = 0.8;

export type Finding = { readonly table: string; readonly check: 'partition-key' | 'hot-partition' | 'item-collection' | 'throughput-cap'; readonly message: string };

export type DoctorOptions = { readonly partitionReadUnits?: number; readonly partitionWriteUnits?: number };

export function registerDoctor(program: Command, io: CliIo): void {
  storeCommand(program, 'doctor')
    .description('warn about hot partitions, poor partition keys, full item collections and capped throughput')
    .option('--json', 'print the findings as JSON')
    .action(async (options: PathOption & { json?: boolean }) => {
      const findings = await withDb(options.path, (db) => diagnose(db), { readOnly: true });
      if (options.json) return printJson(io.out, findings);
      for (const f of findings) io.out(`WARN ${f.table} [${f.check}]: ${f.message}\n`);
      io.out(findings.length === 0 ? 'no problems found\n' : `${findings.length} warning${findings.length === 1 ? '' : 's'}\n`);
    });
}

export function diagnose(db: Edgetable, options: DoctorOptions = {}): Finding[] {
  const ceiling = { read: options.partitionReadUnits ?? PARTITION_READ_UNITS, write: options.partitionWriteUnits ?? PARTITION_WRITE_UNITS };
  const findings: Finding[] = [];
  for (const table of db.context.catalog.all()) {
    const name = table.name;
    const add = (check: Finding['check'], message: string) => findings.push({ table: name, check, message });
    const sample = sampleKeys(db, name, table.keySchema.partitionKey.name);
    const distinct = sample.counts.size;
    const def = table.def;
    const provisioned = def.BillingMode === 'PROVISIONED';
    const rcu = def.ProvisionedThroughput.ReadCapacityUnits;
    const wcu = def.ProvisionedThroughput.WriteCapacityUnits;

    // A sample finds (nearly) every value of a key with few values: each owns one point of the hash space.
    const represented = sample.complete ? sample.items : sample.total;
    if (represented >= MIN_ITEMS_FOR_KEY_CHECK && distinct < FEW_VALUES && distinct * 10 <= represented) {
      const top = [...sample.counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([v, n]) => (sample.complete ? `${v} (${n})` : v)).join(', ');
      const where = sample.complete ? `in ${sample.items} items` : `at ${SAMPLE_SEGMENTS} points across the hash space of ${sample.total} items`;
      add(
        'partition-key',
        `partition key '${table.keySchema.partitionKey.name}' has ${distinct} distinct value${distinct === 1 ? '' : 's'} ${where} [${top}]: ` +
          `requests for one value all go to one partition, so the table serves at most ${distinct * ceiling.read} RCU / ${distinct * ceiling.write} WCU; use a key with many values (or add a suffix)`,
      );
      if (provisioned && sample.complete && (rcu > distinct * ceiling.read || wcu > distinct * ceiling.write)) {
        add('throughput-cap', `provisioned ${rcu} RCU / ${wcu} WCU, but ${distinct} key value${distinct === 1 ? '' : 's'} x ${ceiling.read} RCU / ${ceiling.write} WCU per partition caps it at ${distinct * ceiling.read} RCU / ${distinct * ceiling.write} WCU`);
      }
    }

    const parts = def.partitions.length;
    if (provisioned && (rcu > parts * ceiling.read || wcu > parts * ceiling.write)) {
      add('throughput-cap', `provisioned ${rcu} RCU / ${wcu} WCU over ${parts} partition${parts === 1 ? '' : 's'} of at most ${ceiling.read} RCU / ${ceiling.write} WCU each: at most ${parts * ceiling.read} RCU / ${parts * ceiling.write} WCU can be used`);
    }

    const metrics = db.partitionMetrics(name).filter((m) => m.PartitionId >= 0);
    if (parts >= 2) {
      const bytes = metrics.reduce((n, m) => n + m.SizeBytes, 0);
      const items = metrics.reduce((n, m) => n + m.ItemCount, 0);
      const units = metrics.reduce((n, m) => n + m.ReadUnitsLast5Minutes + m.WriteUnitsLast5Minutes, 0);
      const hot = Math.max(0.5, HOT_SHARE / parts);
      for (const m of metrics) {
        if (items >= MIN_ITEMS_FOR_KEY_CHECK && m.SizeBytes > hot * bytes) {
          add('hot-partition', `partition ${m.PartitionId} holds ${pct(m.SizeBytes, bytes)} of the table's bytes (${m.SizeBytes} of ${bytes}, ${m.ItemCount} of ${items} items) across ${parts} partitions`);
        }
        const used = m.ReadUnitsLast5Minutes + m.WriteUnitsLast5Minutes;
        if (units >= 100 && used > hot * units) {
          add('hot-partition', `partition ${m.PartitionId} consumed ${pct(used, units)} of the table's units in the last 5 minutes (${used} of ${units}) across ${parts} partitions`);
        }
      }
    }
    const throttled = metrics.reduce((n, m) => n + m.ThrottledRequests, 0);
    if (throttled > 0) add('hot-partition', `${throttled} requests throttled in this process: ${metrics.filter((m) => m.ThrottledRequests > 0).map((m) => `partition ${m.PartitionId}: ${m.ThrottledRequests}`).join(', ')}`);

    if (def.LocalSecondaryIndexes.length > 0) {
      const limit = table.itemCollectionLimitBytes;
      db.store.read((txn) => {
        for (const pk of sample.keys.values()) {
          const size = readCollectionBytes(txn, table, pk);
          if (size >= COLLECTION_WARN_FRACTION * limit) add('item-collection', `item collection ${describeKey(pk)} holds ${size} bytes, ${pct(size, limit)} of its ${limit}-byte limit (tables with local secondary indexes)`);
        }
      });
    }
  }
  return findings;
}

/**
 * Partition-key values of a sample of items, with their counts. A table of at most SAMPLE_ITEMS
 * items is read whole (`complete`, exact counts). A larger one is sampled across the hash space:
 * the first item of each of SAMPLE_SEGMENTS evenly spaced hash ranges (parallel-scan segments).
 * Items of one partition-key value are contiguous in hash order, so the first N items
 * in key order would be a handful of item collections and would call any table skewed.
 */
function sampleKeys(db: Edgetable, tableName: string, pkName: string) {
  const counts = new Map<string, number>();
  const keys = new Map<string, KeyValue>();
  let items = 0;
  const take = (page: { Items?: Record<string, unknown>[] }): void => {
    for (const wire of page.Items ?? []) {
      const pk = validateItem(wire)[pkName] as KeyValue;
      const id = describeKey(pk);
      counts.set(id, (counts.get(id) ?? 0) + 1);
      keys.set(id, pk);
      items++;
    }
  };
  const projection = { TableName: tableName, ProjectionExpression: '#k', ExpressionAttributeNames: { '#k': pkName } };
  const total = itemCount(db, tableName);
  const complete = total <= SAMPLE_ITEMS;
  if (complete) {
    let start: unknown;
    do {
      const page = db.execute('Scan', { ...projection, ...(start ? { ExclusiveStartKey: start } : {}) }) as { Items?: Record<string, unknown>[]; LastEvaluatedKey?: unknown };
      take(page);
      start = page.LastEvaluatedKey;
    } while (start);
  } else {
    for (let segment = 0; segment < SAMPLE_SEGMENTS; segment++) take(db.scan({ ...projection, Segment: segment, TotalSegments: SAMPLE_SEGMENTS, Limit: 1 }));
  }
  return { counts, keys, items, total, complete };
}

function describeKey(pk: KeyValue): string {
  if ('S' in pk) return JSON.stringify(pk.S);
  if ('N' in pk) return pk.N;
  return `0x${Buffer.from(pk.B).toString('hex')}`;
}

function pct(part: number, whole: number): string {
  return `${Math.round((100 * part) / whole)}%`;
}

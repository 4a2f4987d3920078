/**
 * The Streams API's promise, as a property: a reader that uses only @aws-sdk/client-dynamodb-streams
 * (DescribeStream, GetShardIterator TRIM_HORIZON, GetRecords with small pages, parents before
 * children) sees every change of a table exactly once and in order per key, whatever the mix of
 * puts, identical puts, deletes, partition splits and polls in between. The oracle is a map of the
 * table's items: each write that changes something is one expected event with its images.
 */
import fc from 'fast-check';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTempDbs } from '../ops/temp-db.js';
import { openClients, SdkStreamReader, type Clients } from './streams-client.js';

const temp = useTempDbs('file');

type Op = { kind: 'put'; pk: number; sk: number; v: number } | { kind: 'delete'; pk: number; sk: number } | { kind: 'split'; at: number } | { kind: 'poll' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('put' as const), pk: fc.nat(7), sk: fc.nat(2), v: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pk: fc.nat(7), sk: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('split' as const), at: fc.nat(15) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'poll' as const }) },
);

/** One change as the oracle and the reader both describe it. */
const describeEvent = (name: string, newV: string | undefined, oldV: string | undefined) => `${name}:${newV ?? '-'}:${oldV ?? '-'}`;

describe('a Streams SDK reader', () => {
  let c: Clients;
  let run = 0;
  beforeAll(async () => {
    c = await openClients(temp, 'in-process');
  });
  afterAll(async () => c.close());

  it('sees every change exactly once, in order per key, across partition splits', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 5 }), async (ops, pageLimit) => {
        const name = `Stream${run++}`;
        c.db.createTable({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'sk', AttributeType: 'N' },
          ],
          StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
        });
        const arn = (c.db.describeTable({ TableName: name }).Table as { LatestStreamArn: string }).LatestStreamArn;
        const reader = new SdkStreamReader(c.streams, arn, pageLimit);
        const model = new Map<string, string>();
        const expected = new Map<string, string[]>();
        const seen = new Map<string, string[]>();
        const expect1 = (key: string, e: string) => expected.set(key, [...(expected.get(key) ?? []), e]);
        const take = (records: _Record[]) => {
          for (const r of records) {
            const d = r.dynamodb!;
            const key = `${d.Keys!.pk!.S}/${d.Keys!.sk!.N}`;
            seen.set(key, [...(seen.get(key) ?? []), describeEvent(r.eventName!, d.NewImage?.v?.S, d.OldImage?.v?.S)]);
          }
        };
        for (const o of ops) {
          if (o.kind === 'poll') take(await reader.poll());
          else if (o.kind === 'split') {
            const partitions = c.db.context.catalog.require(name).def.partitions;
            c.db.splitPartition(name, partitions[o.at % partitions.length]!.id);
          } else {
            const key = `p${o.pk}/${o.sk}`;
            const old = model.get(key);
            if (o.kind === 'put') {
              const v = `v${o.v}`;
              c.db.putItem({ TableName: name, Item: { pk: { S: `p${o.pk}` }, sk: { N: String(o.sk) }, v: { S: v } } });
              if (old !== v) expect1(key, describeEvent(old === undefined ? 'INSERT' : 'MODIFY', v, old));
              model.set(key, v);
            } else {
              c.db.deleteItem({ TableName: name, Key: { pk: { S: `p${o.pk}` }, sk: { N: String(o.sk) } } });
              if (old !== undefined) expect1(key, describeEvent('REMOVE', undefined, old));
              model.delete(key);
            }
          }
        }
        take(await reader.poll());
        expect(Object.fromEntries([...seen].sort())).toEqual(Object.fromEntries([...expected].sort()));
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});

/**
 * Key schema shapes shared by tables and indexes. `KeySchemaElement` and `AttributeDefinition`
 * are DynamoDB's request shapes; `PrimaryKeySchema` is the resolved form the engine works with
 * (each key attribute's name with its declared type).
 */
import type { ScalarAttributeType } from './attribute-value.js';

export type KeyType = 'HASH' | 'RANGE';

export type KeySchemaElement = { AttributeName: string; KeyType: KeyType };

export type AttributeDefinition = { AttributeName: string; AttributeType: ScalarAttributeType };

export type KeyAttribute = { name: string; type: ScalarAttributeType };

export type PrimaryKeySchema = { partitionKey: KeyAttribute; sortKey?: KeyAttribute };

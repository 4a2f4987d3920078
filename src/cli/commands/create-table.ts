import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { keyAttribute, positiveInteger, type KeyAttribute } from '../arguments.js';
import { CliError, type CliIo } from '../cli-io.js';
import { printJson, withDb } from '../with-db.js';

type CreateTableOptions = {
  file?: string;
  name?: string;
  hash?: KeyAttribute;
  range?: KeyAttribute;
  partitions?: number;
  billing: string;
};

export function registerCreateTable(program: Command, io: CliIo): void {
  program
    .command('create-table')
    .description('create a table from a CreateTable request file, or from --name and --hash')
    .argument('<path>', 'store folder')
    .option('--file <def.json>', 'a CreateTable request in JSON')
    .option('--name <table>', 'table name')
    .option('--hash <name:type>', 'partition key, e.g. id:S', keyAttribute)
    .option('--range <name:type>', 'sort key, e.g. ts:N', keyAttribute)
    .option('--partitions <n>', 'initial partitions (edgetable extension PartitionCount)', positiveInteger)
    .option('--billing <mode>', 'PAY_PER_REQUEST or PROVISIONED', 'PAY_PER_REQUEST')
    .action(async (path: string, options: CreateTableOptions) => {
      const request = options.file !== undefined ? requestFromFile(options.file) : requestFromFlags(options);
      await withDb(path, (db) => printJson(io.out, db.execute('CreateTable', request)));
    });
}

function requestFromFile(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new CliError('InvalidFile', `${file}: ${(error as Error).message}`);
  }
}

function requestFromFlags(options: CreateTableOptions): Record<string, unknown> {
  if (options.name === undefined || options.hash === undefined) throw new CliError('UsageError', 'give --file, or --name and --hash');
  const keys = options.range === undefined ? [options.hash] : [options.hash, options.range];
  return {
    TableName: options.name,
    KeySchema: keys.map((k, i) => ({ AttributeName: k.name, KeyType: i === 0 ? 'HASH' : 'RANGE' })),
    AttributeDefinitions: keys.map((k) => ({ AttributeName: k.name, AttributeType: k.type })),
    BillingMode: options.billing,
    ...(options.billing === 'PROVISIONED' && { ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } }),
    ...(options.partitions !== undefined && { PartitionCount: options.partitions }),
  };
}

import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { keyAttribute, positiveInteger, type KeyAttribute } from '../arguments.js';
import { CliError, UsageError, type CliIo } from '../cli-io.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, withDb } from '../with-db.js';

type CreateTableOptions = PathOption & {
  /** The old spelling of the table argument, still accepted. */
  name?: string;
  file?: string;
  hash?: KeyAttribute;
  range?: KeyAttribute;
  partitions?: number;
  billing: string;
  read?: number;
  write?: number;
};

export function registerCreateTable(program: Command, io: CliIo): void {
  storeCommand(program, 'create-table')
    .description('create a table from a CreateTable request file, or from its name and --hash')
    .argument('[table]', 'table name (or TableName in --file)')
    .option('--file <def.json>', 'a CreateTable request in JSON')
    .addOption(new Option('--name <table>', 'table name (old form of the argument)').hideHelp())
    .option('--hash <name:type>', 'partition key, e.g. id:S', keyAttribute)
    .option('--range <name:type>', 'sort key, e.g. ts:N', keyAttribute)
    .option('--partitions <n>', 'initial partitions (edgetable extension PartitionCount)', positiveInteger)
    .option('--billing <mode>', 'PAY_PER_REQUEST or PROVISIONED', 'PAY_PER_REQUEST')
    .option('--read <units>', 'provisioned read capacity units (PROVISIONED; default 5)', positiveInteger)
    .option('--write <units>', 'provisioned write capacity units (PROVISIONED; default 5)', positiveInteger)
    .action(async (argument: string | undefined, options: CreateTableOptions) => {
      const table = argument ?? options.name;
      const request = options.file !== undefined ? requestFromFile(options.file, table) : requestFromFlags(table, options);
      await withDb(options.path, (db) => printJson(io.out, db.execute('CreateTable', request)));
    });
}

/** The request in `file`; a table name given on the command line overrides its TableName. */
function requestFromFile(file: string, table: string | undefined): Record<string, unknown> {
  let request: Record<string, unknown>;
  try {
    request = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new CliError('InvalidFile', `${file}: ${(error as Error).message}`);
  }
  return table === undefined ? request : { ...request, TableName: table };
}

function requestFromFlags(table: string | undefined, options: CreateTableOptions): Record<string, unknown> {
  if (table === undefined || options.hash === undefined) throw new UsageError('give --file, or a table name and --hash (edgetable create-table Readings --hash id:S)');
  if ((options.read !== undefined || options.write !== undefined) && options.billing !== 'PROVISIONED') throw new UsageError('--read and --write go with --billing PROVISIONED');
  const keys = options.range === undefined ? [options.hash] : [options.hash, options.range];
  return {
    TableName: table,
    KeySchema: keys.map((k, i) => ({ AttributeName: k.name, KeyType: i === 0 ? 'HASH' : 'RANGE' })),
    AttributeDefinitions: keys.map((k) => ({ AttributeName: k.name, AttributeType: k.type })),
    BillingMode: options.billing,
    ...(options.billing === 'PROVISIONED' && { ProvisionedThroughput: { ReadCapacityUnits: options.read ?? 5, WriteCapacityUnits: options.write ?? 5 } }),
    ...(options.partitions !== undefined && { PartitionCount: options.partitions }),
  };
}

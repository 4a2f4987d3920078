import type { Command } from 'commander';
import { ValidationException } from '../../model/errors.js';
import { TTL_ALREADY_DISABLED } from '../../ops/control/update-time-to-live.js';
import type { CliIo } from '../cli-io.js';
import { addPathOption, type PathOption } from '../store-option.js';
import { printJson, withDb } from '../with-db.js';

/** `ttl enable <table> <attribute>`, `ttl disable <table>`, `ttl describe <table>` (UpdateTimeToLive, DescribeTimeToLive). */
export function registerTtl(program: Command, io: CliIo): void {
  const ttl = program.command('ttl').description("a table's time to live: enable, disable, describe");
  addPathOption(ttl.command('enable'))
    .description('expire items whose <attribute> (epoch seconds) has passed (UpdateTimeToLive)')
    .argument('<table>', 'table name')
    .argument('<attribute>', 'attribute holding the expiry time, in seconds since the epoch')
    .action(async (table: string, attribute: string, options: PathOption) => {
      await withDb(options.path, (db) => printJson(io.out, db.updateTimeToLive({ TableName: table, TimeToLiveSpecification: { Enabled: true, AttributeName: attribute } })));
    });
  addPathOption(ttl.command('disable'))
    .description('stop expiring items (UpdateTimeToLive with the current attribute)')
    .argument('<table>', 'table name')
    .action(async (table: string, options: PathOption) => {
      await withDb(options.path, (db) => {
        const current = db.describeTimeToLive({ TableName: table }) as { TimeToLiveDescription: { AttributeName?: string } };
        const attribute = current.TimeToLiveDescription.AttributeName;
        if (attribute === undefined) throw new ValidationException(TTL_ALREADY_DISABLED);
        printJson(io.out, db.updateTimeToLive({ TableName: table, TimeToLiveSpecification: { Enabled: false, AttributeName: attribute } }));
      });
    });
  addPathOption(ttl.command('describe'))
    .description("print the table's TimeToLiveDescription (DescribeTimeToLive)")
    .argument('<table>', 'table name')
    .option('--json', 'JSON output (always; accepted on every read command)')
    .action(async (table: string, options: PathOption) => {
      await withDb(options.path, (db) => printJson(io.out, db.describeTimeToLive({ TableName: table })), { readOnly: true });
    });
}

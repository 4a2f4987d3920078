/**
 * Every LMDB sub-database name, built in one place (as LevelDB's filename.h owns every file name).
 *
 *   _catalog                          table name -> table definition (JSON)
 *   t/<table>/p/<pid>                 base items of one partition
 *   t/<table>/p/<pid>/lsi/<index>     LSI entries living beside their base partition
 *   t/<table>/gsi/<index>/p/<pid>     GSI entries, partitioned by the GSI's own map
 *   t/<table>/s/<shard>               change-log shard
 *   t/<table>/meta                    per-partition statistics and other per-table records
 *   t/<table>/ttl                     expiry index of a table with Time to Live
 *   t/<table>/ids                     partition-id dictionary of a table of format 3 (table/partition-ids.ts)
 *   _sync                             sync cursors
 *   _ended_streams                    the streams of deleted tables, readable for the stream retention
 *   _ended_stream_records             their change records (stream/ended-streams.ts)
 *   _forward                          a hub's forwarding cursors (hub/forward/)
 *
 * Table and index names are restricted to [a-zA-Z0-9_.-], so '/' can never be ambiguous.
 */

export const CATALOG_DB = '_catalog';
export const SYNC_DB = '_sync';
export const ENDED_STREAMS_DB = '_ended_streams';
export const ENDED_STREAM_RECORDS_DB = '_ended_stream_records';

export function tablePrefix(table: string): string {
  return `t/${table}/`;
}

export function partitionDb(table: string, pid: number): string {
  return `t/${table}/p/${pid}`;
}

export function localIndexDb(table: string, pid: number, index: string): string {
  return `t/${table}/p/${pid}/lsi/${index}`;
}

export function globalIndexDb(table: string, index: string, pid: number): string {
  return `t/${table}/gsi/${index}/p/${pid}`;
}

export function globalIndexPrefix(table: string, index: string): string {
  return `t/${table}/gsi/${index}/`;
}

export function streamShardDb(table: string, shard: number): string {
  return `t/${table}/s/${shard}`;
}

export function tableMetaDb(table: string): string {
  return `t/${table}/meta`;
}

/** Expiry index of a table with Time to Live (ttl/expiry-index.ts). */
export function expiryIndexDb(table: string): string {
  return `t/${table}/ttl`;
}

/** Partition-id dictionary of a table of the partition-id layout (table/partition-ids.ts). */
export function partitionIdsDb(table: string): string {
  return `t/${table}/ids`;
}

/** Forwarding cursors of a hub (replication/forward-cursor.ts). */
export const FORWARD_DB = '_forward';

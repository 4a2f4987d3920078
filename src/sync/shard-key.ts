/** The key of one table's shard in the agent's maps: the table name, NUL, the shard id. */
export function shardKey(table: string, shard: number): string {
  return `${table}\u0000${shard}`;
}

export function tableOfShardKey(key: string): string {
  return key.slice(0, key.indexOf('\u0000'));
}

export function isShardOf(key: string, table: string): boolean {
  return key.startsWith(`${table}\u0000`);
}

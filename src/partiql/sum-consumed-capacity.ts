/**
 * ConsumedCapacity of several requests as one list: one entry per table in order of first
 * appearance, every number summed (CapacityUnits, Read/WriteCapacityUnits, and under INDEXES the
 * Table and index arms).
 */
type Capacity = Record<string, unknown>;

export function sumConsumedCapacity(parts: readonly unknown[]): Capacity[] {
  const byTable = new Map<string, Capacity>();
  for (const part of parts.flatMap((p) => (Array.isArray(p) ? p : p === undefined ? [] : [p])) as Capacity[]) {
    const name = String(part.TableName);
    const current = byTable.get(name);
    byTable.set(name, current ? add(current, part) : structuredClone(part));
  }
  return [...byTable.values()];
}

function add(a: Capacity, b: Capacity): Capacity {
  const out: Capacity = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const mine = out[k];
    if (typeof v === 'number') out[k] = (typeof mine === 'number' ? mine : 0) + v;
    else if (typeof v === 'object' && v !== null) out[k] = add(typeof mine === 'object' && mine !== null ? (mine as Capacity) : {}, v as Capacity);
    else out[k] = v;
  }
  return out;
}

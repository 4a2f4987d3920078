/**
 * What a structural check found (store-check.ts), as plain JSON: the line the check's child
 * process prints and its parent reads back. Keys are hex; txn ids decimal text.
 */
import type { WalkReport } from './page-walk.js';

export type CheckOutcome = 'clean' | 'damaged' | 'failed';

export interface DamageEntry {
  readonly page: number | null;
  readonly problem: string;
  /** Hex of the last key read before the damage, null: from the start. */
  readonly after: string | null;
  /** Hex of the first key read after it, null: to the end. */
  readonly before: string | null;
}

export interface DatabaseCheck {
  /** null: LMDB's main database; '<free pages>': its free-page database. */
  readonly name: string | null;
  readonly entries: number;
  readonly expectedEntries: number;
  readonly damage: DamageEntry[];
}

export interface CheckResult {
  readonly outcome: CheckOutcome;
  /** Why the check could not run, or what refused the file before the walk (a meta page). */
  readonly message?: string;
  readonly code?: string;
  readonly txnId?: string;
  readonly pages?: number;
  readonly unreachablePages?: number;
  readonly databases?: DatabaseCheck[];
}

const hex = (key: Buffer | null): string | null => (key === null ? null : key.toString('hex'));

export function encodeCheckReport(result: { outcome: CheckOutcome; report?: WalkReport; message?: string; code?: string }): string {
  const { report } = result;
  const out: CheckResult = {
    outcome: result.outcome,
    ...(result.message === undefined ? {} : { message: result.message }),
    ...(result.code === undefined ? {} : { code: result.code }),
    ...(report === undefined
      ? {}
      : {
          txnId: report.txnId.toString(),
          pages: report.lastPage + 1,
          unreachablePages: report.unreachablePages,
          databases: report.databases.map((db) => ({
            name: db.name,
            entries: db.entries,
            expectedEntries: db.expectedEntries,
            damage: db.damage.map((d) => ({ page: d.page, problem: d.problem, after: hex(d.after), before: hex(d.before) })),
          })),
        }),
  };
  return JSON.stringify(out);
}

/** The damaged databases of a result, one line each, for error messages and reports. */
export function describeDamage(result: CheckResult): string[] {
  if (result.databases === undefined) return result.message === undefined ? [] : [result.message];
  return result.databases
    .filter((db) => db.damage.length > 0)
    .map((db) => `${db.name ?? '<main>'}: ${db.damage[0]!.problem}${db.damage.length > 1 ? ` (and ${db.damage.length - 1} more)` : ''}; ${db.entries} of ${db.expectedEntries} entries readable`);
}

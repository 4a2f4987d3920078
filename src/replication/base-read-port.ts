/**
 * The base read (base-read.ts) behind a narrow interface keyed by table name, for the device's
 * sync agent (sync/base-sender.ts), which reaches the engine only through the Replica port
 * (replica.ts baseReads).
 */
import type { Store } from '../storage/store.js';
import type { Catalog } from '../table/catalog.js';
import type { Commit } from './commit.js';
import { type BaseState, isBaseReadDone } from './base-read-state.js';
import { beginBaseSession, commitBasePage, readBasePage, readBaseProgress, type BasePage } from './base-read.js';

export type { BasePage } from './base-read.js';
export { BASE_PAGE_STRIDE, BASE_SHARD } from './base-read-state.js';

export type BaseReadProgress = {
  readonly tableId: string;
  /** Items the table held at enable. */
  readonly total: number;
  /** Items the hub acknowledged. */
  readonly acked: number;
  readonly startedMs: number;
  readonly done: boolean;
};

export interface BaseReadPort {
  /** Starts this session of the table's base read (a new page number); undefined: none. */
  begin(table: string): Promise<BaseReadProgress | undefined>;
  progress(table: string): BaseReadProgress | undefined;
  /** The page after the acknowledged cursor; undefined when there is none to read. */
  readPage(table: string, maxRecords: number, maxBytes: number): BasePage | undefined;
  /** The hub acknowledged `page` (or it held nothing to send): the cursor moves past it. */
  commit(table: string, page: BasePage): Promise<BaseReadProgress | undefined>;
}

/** `commit`: the engine's asynchronous commit path (replica.ts), which the port's writes take. */
export function baseReadPort(store: Store, catalog: Catalog, commit: Commit): BaseReadPort {
  return {
    begin: async (name) => {
      const table = catalog.find(name);
      return table ? progressOf(await beginBaseSession(commit, table)) : undefined;
    },
    progress: (name) => {
      const table = catalog.find(name);
      return table ? progressOf(readBaseProgress(store, table)) : undefined;
    },
    readPage: (name, maxRecords, maxBytes) => {
      const table = catalog.find(name);
      return table ? readBasePage(store, table, maxRecords, maxBytes) : undefined;
    },
    commit: async (name, page) => {
      const table = catalog.find(name);
      return table ? progressOf(await commitBasePage(store, commit, table, page)) : undefined;
    },
  };
}

function progressOf(state: BaseState | undefined): BaseReadProgress | undefined {
  return state && { tableId: state.tableId, total: state.total, acked: state.acked, startedMs: state.startedMs, done: isBaseReadDone(state) };
}

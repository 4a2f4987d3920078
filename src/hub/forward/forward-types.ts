/**
 * The forwarder's public shapes, apart from the modules that use the AWS SDK's types: the
 * published declarations reach these, and a store-only install has no SDK to resolve.
 */
import type { ChangeRecord } from '../../replication/replica-types.js';

/** 'conditional': one conditional write per record; 'batch': BatchWriteItem, newest per key. */
export type WriteMode = 'conditional' | 'batch';

export type ForwardRecord = { readonly keyId: string; readonly seq: number; readonly record: ChangeRecord };

/** A record the endpoint refused for good, and the endpoint's error. */
export type Refusal = ForwardRecord & { readonly error: unknown; readonly reason: string };

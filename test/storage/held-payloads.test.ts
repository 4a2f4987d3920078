/**
 * HeldPayloads: the log records of a held txn's writes, in one buffer reused from txn to txn
 * (held-txn.ts).
 */
import { describe, expect, it } from 'vitest';
import { HeldPayloads } from '../../src/storage/held-payloads.js';

const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill);
const contents = (payloads: HeldPayloads): number[][] => [...payloads].map((p) => [...p]);

describe('HeldPayloads', () => {
  it('gives back each payload appended, in order, as a copy the caller may overwrite', () => {
    const payloads = new HeldPayloads(1024, 16);
    const scratch = new Uint8Array([1, 2, 3]);
    payloads.append(scratch);
    scratch.set([9, 9, 9]);
    payloads.append(new Uint8Array([4]));
    payloads.append(new Uint8Array(0));
    expect(contents(payloads)).toEqual([[1, 2, 3], [4], []]);
    expect(payloads.byteLength).toBe(4);
  });

  it('grows past its first capacity without losing what it holds', () => {
    const payloads = new HeldPayloads(1024, 8);
    for (let i = 0; i < 20; i++) payloads.append(bytes(5, i));
    expect(payloads.byteLength).toBe(100);
    expect(contents(payloads)).toEqual(Array.from({ length: 20 }, (_, i) => Array(5).fill(i)));
  });

  it('holds a payload larger than twice its capacity', () => {
    const payloads = new HeldPayloads(1024, 8);
    payloads.append(bytes(3, 1));
    payloads.append(bytes(100, 2));
    expect(contents(payloads)).toEqual([[1, 1, 1], Array(100).fill(2)]);
  });

  it('is empty after clear() and takes the next txn’s payloads from the start', () => {
    const payloads = new HeldPayloads(1024, 16);
    payloads.append(bytes(10, 1));
    payloads.clear();
    expect(payloads.byteLength).toBe(0);
    expect(contents(payloads)).toEqual([]);
    payloads.append(bytes(2, 7));
    expect(contents(payloads)).toEqual([[7, 7]]);
  });

  it('keeps its buffer across clear() up to retainBytes, and drops a larger one', () => {
    const payloads = new HeldPayloads(64, 16);
    payloads.append(bytes(40, 1));
    const [kept] = [...payloads];
    payloads.clear();
    payloads.append(bytes(40, 2));
    expect([...payloads][0]!.buffer).toBe(kept!.buffer);

    payloads.append(bytes(200, 3));
    const [grown] = [...payloads];
    payloads.clear();
    payloads.append(bytes(1, 4));
    expect([...payloads][0]!.buffer).not.toBe(grown!.buffer);
    expect([...payloads][0]!.buffer.byteLength).toBe(16);
  });

  it('allocates nothing before its first payload', () => {
    const payloads = new HeldPayloads(64, 16);
    expect([...payloads]).toEqual([]);
    payloads.append(bytes(3, 5));
    expect([...payloads][0]!.buffer.byteLength).toBe(16);
  });
});

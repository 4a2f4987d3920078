/**
 * A write whose redo-log flush fails (issue 45): its error must be the whole truth before it is
 * returned. The writer process (harness/failed-flush-worker.ts) applies `ADD n :1` twice, the
 * second time with an injected flush failure, and is SIGKILLed right after that error: no close,
 * no later write. The reopened store must hold exactly what the error said.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { useTempDirs } from './harness/fixture.js';

const worker = fileURLToPath(new URL('./harness/failed-flush-worker.ts', import.meta.url));
const temp = useTempDirs('edgetable-failed-flush-');

describe.each([
  ['the synchronous API', 'sync', 1],
  ['db.promises', 'promises', 1],
  ['the synchronous API with held writes', 'sync', 20],
] as const)("a failed redo-log flush through %s, the writer killed right after the error", (_, via, perCommit) => {
  it('is reported as not applied, and after a reopen it is not: a retry applies it once', () => {
    const path = join(temp.dir(), 'db');
    const run = spawnSync(process.execPath, ['--import', 'tsx', worker, path, via, String(perCommit)], { encoding: 'utf8', timeout: 60_000 });
    expect(run.signal, run.stderr).toBe('SIGKILL');
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe('n 1');
    expect(lines[1]).toMatch(/^error IO .*injected fault: log flush #\d+ failed/);
    expect(lines[1]).toMatch(/nothing of this write was applied/);
    expect(lines[2]).toBe('n 1');
    const db = temp.track(open({ path, durability: 'log' }));
    expect(db.getItem({ TableName: 'Counters', Key: { pk: { S: 'c' } } }).Item?.n).toEqual({ N: '1' });
    db.updateItem({ TableName: 'Counters', Key: { pk: { S: 'c' } }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } });
    expect(db.getItem({ TableName: 'Counters', Key: { pk: { S: 'c' } } }).Item?.n).toEqual({ N: '2' });
  });
});

// The smoke run scripts/arm-check.sh makes inside an ARM root file system, from a project that
// installed edgetable's packed tarball: the embedded API (a table with an LSI and a GSI, writes,
// reads and queries, a reopen), the CLI from node_modules/.bin, and `serve` answering one HTTP
// request on loopback. One line per step, `PASS <step> (<ms> ms)` or `FAIL <step>: <why>`; the
// last line is `N steps passed, M failed` and the exit code is the number failed.
// Plain JavaScript on purpose: it runs with the chroot's node and nothing else.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cli = join(process.cwd(), 'node_modules', '.bin', 'edgetable');
const work = mkdtempSync(join(tmpdir(), 'edgetable-arm-smoke-'));
const store = join(work, 'store');
let passed = 0;
let failed = 0;

async function step(name, body) {
  const start = performance.now();
  try {
    await body();
    passed++;
    console.log(`PASS ${name} (${Math.round(performance.now() - start)} ms)`);
    return true;
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${err instanceof Error ? err.message : String(err)}`);
    return false;
  }
}

function expect(condition, what) {
  if (!condition) throw new Error(what);
}

const S = (s) => ({ S: s });
const N = (n) => ({ N: String(n) });

// Every CLI call is bounded: an emulated start of node takes seconds, a hang must not stall the run.
function runCli(args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`edgetable ${args.join(' ')} exited ${r.status}: ${r.stderr.trim().slice(0, 300)}`);
  return r.stdout;
}

let edgetable;
let db;
const ok = await step(`import edgetable (node ${process.version}, ${process.arch})`, async () => {
  edgetable = await import('edgetable');
  expect(typeof edgetable.open === 'function', 'no open() export');
});

if (ok) {
  await step('open a new store', () => {
    db = edgetable.open({ path: store });
  });

  await step('create a table with an LSI and a GSI', () => {
    db.createTable({
      TableName: 'Readings',
      KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
      AttributeDefinitions: [
        { AttributeName: 'sensor', AttributeType: 'S' },
        { AttributeName: 'ts', AttributeType: 'N' },
        { AttributeName: 'temp', AttributeType: 'N' },
        { AttributeName: 'site', AttributeType: 'S' },
      ],
      LocalSecondaryIndexes: [{
        IndexName: 'byTemp',
        KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'temp', KeyType: 'RANGE' }],
        Projection: { ProjectionType: 'ALL' },
      }],
      GlobalSecondaryIndexes: [{
        IndexName: 'bySite',
        KeySchema: [{ AttributeName: 'site', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      }],
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  // Fractional and negative numbers on purpose: on 32-bit ARM a double read from an unaligned
  // address is what once crashed (docs/raspberry-pi.md, section 2).
  await step('put 50 items, get one back', () => {
    for (let i = 0; i < 50; i++) {
      db.putItem({
        TableName: 'Readings',
        Item: { sensor: S(`s-${i % 5}`), ts: N(1_700_000_000_000 + i), temp: N((i * 0.37 - 5).toFixed(2)), site: S(i % 2 ? 'north' : 'south') },
      });
    }
    const { Item } = db.getItem({ TableName: 'Readings', Key: { sensor: S('s-3'), ts: N(1_700_000_000_013) } });
    expect(Number(Item?.temp?.N) === Number((13 * 0.37 - 5).toFixed(2)), `getItem gave ${JSON.stringify(Item)}`);
  });

  await step('query the table, the LSI and the GSI', () => {
    const latest = db.query({
      TableName: 'Readings', KeyConditionExpression: 'sensor = :s', ExpressionAttributeValues: { ':s': S('s-1') },
      ScanIndexForward: false, Limit: 3,
    });
    expect(latest.Items.length === 3 && latest.Items[0].ts.N === String(1_700_000_000_046), `table query: ${JSON.stringify(latest.Items[0])}`);
    const warm = db.query({
      TableName: 'Readings', IndexName: 'byTemp', KeyConditionExpression: 'sensor = :s AND #t > :t',
      ExpressionAttributeNames: { '#t': 'temp' }, ExpressionAttributeValues: { ':s': S('s-1'), ':t': N(5) },
    });
    const temps = warm.Items.map((item) => Number(item.temp.N));
    expect(temps.length > 0 && temps.every((t, i) => t > 5 && (i === 0 || t >= temps[i - 1])), `LSI query: ${temps}`);
    const north = db.query({
      TableName: 'Readings', IndexName: 'bySite', KeyConditionExpression: 'site = :p', ExpressionAttributeValues: { ':p': S('north') },
    });
    expect(north.Count === 25, `GSI query counted ${north.Count}, not 25`);
  });

  await step('close, reopen, read again', () => {
    db.close();
    db = edgetable.open({ path: store });
    const { Item } = db.getItem({ TableName: 'Readings', Key: { sensor: S('s-0'), ts: N(1_700_000_000_000) } });
    expect(Item?.site?.S === 'south', `after reopen: ${JSON.stringify(Item)}`);
    db.close();
  });

  await step('CLI: edgetable --help', () => {
    expect(runCli(['--help']).includes('serve'), '--help does not list serve');
  });

  await step('CLI: edgetable describe Readings', () => {
    const described = JSON.parse(runCli(['describe', 'Readings', '--path', store]));
    expect(described.Table?.ItemCount === 50, `describe: ItemCount ${described.Table?.ItemCount}`);
  });

  await step('serve: one DynamoDB request over HTTP on loopback', () => serveOnce());
}

rmSync(work, { recursive: true, force: true });
console.log(`${passed} steps passed, ${failed} failed`);
process.exit(failed);

// Starts `serve` on a free loopback port, waits for its ready line (JSON with the url), asks for
// the table through the DynamoDB JSON protocol, then stops it with SIGTERM and waits for it.
function serveOnce() {
  return new Promise((resolve, reject) => {
    const child = spawn(cli, ['serve', '--path', store, '--port', '0', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let asked = false;
    let outcome;
    const timer = setTimeout(() => finish(new Error(`no answer within 120 s; stderr: ${stderr.slice(0, 300)}`)), 120_000);
    function finish(err) {
      if (outcome !== undefined) return;
      outcome = err ?? null;
      clearTimeout(timer);
      child.kill('SIGTERM');
    }
    child.on('exit', (code, signal) => {
      if (outcome === undefined) outcome = new Error(`serve exited (${code ?? signal}) before answering: ${stderr.slice(0, 300)}`);
      if (outcome) reject(outcome);
      else resolve();
    });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.stdout.on('data', async (chunk) => {
      stdout += chunk;
      const ready = stdout.split('\n').map((line) => { try { return JSON.parse(line); } catch { return undefined; } }).find((l) => l?.url);
      if (!ready || asked || outcome !== undefined) return;
      asked = true;
      try {
        const res = await fetch(ready.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': 'DynamoDB_20120810.DescribeTable',
            // Checked for form, not verified, without --auth-file (as DynamoDB Local does).
            'x-amz-date': '20260101T000000Z',
            authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00',
          },
          body: JSON.stringify({ TableName: 'Readings' }),
          signal: AbortSignal.timeout(60_000),
        });
        const body = await res.json();
        if (res.status !== 200 || body.Table?.ItemCount !== 50) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
        finish();
      } catch (err) {
        finish(err);
      }
    });
  });
}

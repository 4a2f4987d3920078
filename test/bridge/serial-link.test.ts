import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CobsSplitter, cobsFrame, decodeAck, encodeSensorFrame } from '../../src/codec/sensor-frame.js';
import { open } from '../../src/edgetable.js';
import { MAX_SENSOR_ACK_BYTES } from '../../src/model/limits.js';
import { startBridge } from '../../src/bridge/start-bridge.js';
import { createSerialPortTransport, SerialPackageMissingError } from '../../src/bridge/serialport-transport.js';
import { createTtyTransport } from '../../src/bridge/tty-transport.js';
import { buildFirmwareTools, cFrame, scanAll, tempDir, until, waitForExit } from './fixtures/helpers.js';

const HAS_SOCAT = spawnSync('which', ['socat']).status === 0;
if (!HAS_SOCAT) console.warn('serial-link tests skipped: socat is not installed (apt-get install socat) to make a pseudo-terminal pair');

beforeAll(() => buildFirmwareTools());
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.restoreAllMocks();
});

/** Two linked pseudo-terminals: bytes written to one are read from the other. */
async function ptyPair(dir: string): Promise<{ bridgeEnd: string; nodeEnd: string; socat: ChildProcess }> {
  const bridgeEnd = join(dir, 'tty-bridge');
  const nodeEnd = join(dir, 'tty-node');
  const socat = spawn('socat', [`pty,raw,echo=0,link=${bridgeEnd}`, `pty,raw,echo=0,link=${nodeEnd}`], { stdio: 'ignore' });
  await until(() => existsSync(bridgeEnd) && existsSync(nodeEnd), 5000, 'socat ptys');
  return { bridgeEnd, nodeEnd, socat };
}

describe('serial link', () => {
  it.skipIf(!HAS_SOCAT)('ingests COBS frames from a pty, acks with COBS acks, counts COBS garbage as corrupt', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const dir = tempDir('etb-bridge-serial-');
    cleanups.push(dir.cleanup);
    const { bridgeEnd, nodeEnd, socat } = await ptyPair(dir.path);
    cleanups.push(async () => {
      socat.kill('SIGTERM');
      await waitForExit(socat);
    });
    const db = open({ path: join(dir.path, 'store') });
    cleanups.push(() => db.close());
    const bridge = await startBridge({ db, serial: [{ path: bridgeEnd, baudRate: 115200, driver: 'tty' }], allowUnauthenticated: true });
    cleanups.push(() => bridge.stop());

    const node = createTtyTransport({ path: nodeEnd, baudRate: 115200 });
    const splitter = new CobsSplitter(MAX_SENSOR_ACK_BYTES);
    const acked = new Map<string, number>();
    node.onData((chunk) => {
      for (const m of splitter.push(chunk)) {
        if (!m.ok) continue;
        const a = decodeAck(m.frame);
        acked.set(a.deviceId, a.seq);
      }
    });
    await node.open();
    cleanups.push(() => node.close());

    // A node boots by flushing the line, then sends frames; one is split across writes.
    const frames = Array.from({ length: 20 }, (_, i) => cFrame(['--cobs', '--base', '1', 'uart-1', String(i + 1), String(5000 + i), `v=${i}`, 'z=0']));
    await node.write(new Uint8Array([0]));
    for (const f of frames.slice(0, 10)) await node.write(f);
    await node.write(new Uint8Array([0x05, 0x11, 0x00])); // COBS block runs past its delimiter
    await node.write(frames[10]!.subarray(0, 7));
    await node.write(frames[10]!.subarray(7));
    await node.write(new Uint8Array([...frames.slice(11).flatMap((f) => [...f]), ...frames[4]!])); // + a replay
    // A frame made by the TypeScript encoder, as a different node on the same port.
    await node.write(cobsFrame(encodeSensorFrame({ deviceId: 'uart-2', seq: 1, ts: 1, fields: { s: 'hi' } })));
    await until(() => bridge.status().totals.received === 23, 5000, 'all serial messages');
    await until(() => acked.get('uart-1') === 20 && acked.get('uart-2') === 1, 5000, 'COBS acks for both nodes');
    await bridge.stop();

    const readings = scanAll(db, 'Readings');
    expect(readings.filter((r) => r.deviceId === 'uart-1').map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(readings.filter((r) => r.deviceId === 'uart-2')).toHaveLength(1);
    expect(bridge.status().totals).toMatchObject({ received: 23, written: 21, duplicate: 1, corrupt: 1, corruptByKind: { truncated: 1 } });
    expect(bridge.status().devices['uart-1']).toMatchObject({ acked: 20, written: 20 });
  });

  it('without the serialport package, the default driver fails with a clear error', async () => {
    const t = createSerialPortTransport({ path: '/dev/null', baudRate: 9600 });
    let installed = true;
    try {
      await import('serial' + 'port');
    } catch {
      installed = false;
    }
    if (installed) return; // nothing to show once the package is a dependency
    await expect(t.open()).rejects.toThrow(SerialPackageMissingError);
    await expect(t.open()).rejects.toThrow(/npm install serialport.*'tty'/);
  });
});

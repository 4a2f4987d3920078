/**
 * Quiescence of the fleet, from the processes' status (the convergence harness's rule, for every
 * table and the forwarder): the hub online with nothing left to forward (lag 0); every device
 * online with `flushed()` resolved; every received table (WorkOrders, Late) in state 'delta' on the
 * device and served in 'delta' by the hub; then nothing moving for longer than twice the down ack
 * timeout (a down message lost in a broker restart would have timed out, and moved a counter).
 * Never throws: at the deadline it answers what was still missing.
 */
import type { HubStatus } from '../../src/hub/start-hub.js';
import type { SyncStatus } from '../../src/sync/sync-options.js';
import { DOWN_ACK_TIMEOUT_MS } from '../sync/harness/cluster.js';
import type { HarnessChild } from '../sync/harness/child-process.js';
import type { FleetDevices } from './fleet-devices.js';

const POLL_MS = 500;
const QUIET_POLLS = Math.ceil((2 * DOWN_ACK_TIMEOUT_MS) / POLL_MS) + 1;

export type Quiescence = { readonly reached: boolean; readonly ms: number; readonly missing: string };

export async function quiesceFleet(hub: () => HarnessChild, devices: FleetDevices, ids: readonly string[], received: readonly string[], deadlineMs: number, log: (line: string) => void): Promise<Quiescence> {
  const t0 = Date.now();
  let quiet = 0;
  let last = '';
  let missing = 'nothing polled yet';
  while (Date.now() - t0 < deadlineMs) {
    try {
      const flushed = await Promise.all(ids.map((_, i) => devices.call<boolean>(i, 'flushed', { timeoutMs: 2000 })));
      const hubStatus = await hub().call<HubStatus>('status');
      const statuses = await Promise.all(ids.map((_, i) => devices.call<SyncStatus>(i, 'status')));
      const served = new Map((hubStatus.down?.subscriptions ?? []).map((s) => [`${s.device}/${s.table}`, s.state]));
      const behind: string[] = [];
      if (!hubStatus.online) behind.push('hub offline');
      const lag = hubStatus.forward?.lagRecords ?? 0;
      if (lag > 0) behind.push(`forward lag ${lag} records${hubStatus.forward?.lastError ? ` (${hubStatus.forward.lastError.slice(0, 160)})` : ''}`);
      statuses.forEach((s, i) => {
        const id = ids[i]!;
        if (!s.online) behind.push(`${id} offline`);
        if (!flushed[i]) behind.push(`${id} not flushed`);
        for (const table of received) {
          const mine = (s.down ?? []).find((d) => d.table === table)?.state ?? '-';
          const hubs = served.get(`${id}/${table}`) ?? '-';
          if (mine !== 'delta' || hubs !== 'delta') behind.push(`${id} ${table} ${mine}/hub ${hubs}`);
        }
      });
      const { subscriptions: _s, ...downCounters } = hubStatus.down ?? { subscriptions: [] };
      const moving = JSON.stringify({
        hub: [hubStatus.recordsApplied, hubStatus.recordsSuperseded, hubStatus.duplicateRecords, hubStatus.batchesApplied, hubStatus.clock, downCounters, hubStatus.forward?.forwarded],
        devices: statuses.map(({ shards, lastError: _e, online: _o, lastRejections: _r, ...counters }) => [counters, shards.map((s) => [s.lastSeq, s.ackedSeq])]),
      });
      quiet = behind.length === 0 && moving === last ? quiet + 1 : 0;
      last = moving;
      missing = behind.length === 0 ? 'counters still moving' : `${behind.length} conditions: ${behind.slice(0, 8).join('; ')}`;
      if (quiet >= QUIET_POLLS) return { reached: true, ms: Date.now() - t0, missing: '' };
      if (behind.length > 0) log(`quiescing: ${missing}`);
    } catch (err) {
      missing = `a process did not answer: ${(err as Error).message}`;
      log(`quiescing: ${missing}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return { reached: false, ms: Date.now() - t0, missing };
}

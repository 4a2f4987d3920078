/**
 * The allow-list's bookkeeping (device-access.ts decides): a device it does not admit is counted,
 * listed (at most MAX_REFUSED_DEVICES_KEPT devices) and logged once, the first time it publishes.
 */
import { log } from '../log/logger.js';
import type { DeviceAccess } from './device-access.js';
import type { RefusedDevice } from './hub-types.js';

const MAX_REFUSED_DEVICES_KEPT = 1000;

export class DeviceAdmission {
  private readonly refused = new Map<string, { deviceId: string; messages: number; firstAtMs: number; lastAtMs: number }>();

  /** `onRefusedMessage` counts every message refused (status().refusedDeviceMessages). */
  constructor(
    private readonly access: DeviceAccess,
    private readonly onRefusedMessage: () => void,
  ) {}

  /** False (and counted, logged the first time) for a device the allow-list does not admit. */
  admits(device: string, topic: string): boolean {
    if (this.access.isAllowed(device)) return true;
    const now = Date.now();
    this.onRefusedMessage();
    const known = this.refused.get(device);
    if (known) {
      known.messages += 1;
      known.lastAtMs = now;
    } else if (this.refused.size < MAX_REFUSED_DEVICES_KEPT) {
      this.refused.set(device, { deviceId: device, messages: 1, firstAtMs: now, lastAtMs: now });
      log('hub').warn({ deviceId: device, topic }, `ignoring device ${device}: not on the hub's allow-list (further messages are counted, not logged)`);
    }
    return false;
  }

  /** Copies: the caller may keep them. */
  refusedDevices(): RefusedDevice[] {
    return [...this.refused.values()].map((d) => ({ ...d }));
  }
}

/**
 * The hub and the bridge as the package exports them: each loads its module (and with it mqtt)
 * on first call, so `import { open } from 'edgetable'` does not pay for MQTT on a device that only
 * stores. db.startSync loads the sync agent the same way.
 */
import type { Bridge, BridgeOptions } from './bridge/start-bridge.js';
import type { Hub, HubOptions } from './hub/start-hub.js';
import type { ClearSchemasOptions } from './hub/clear-schemas.js';

/** Starts the central hub (hub/start-hub.ts): subscribes to every device's batches and applies them. */
export async function startHub(options: HubOptions): Promise<Hub> {
  const { startHub: start } = await import('./hub/start-hub.js');
  return start(options);
}

/** Clears devices' retained schema messages on a broker (hub/clear-schemas.ts); returns their topics. */
export async function clearRetainedSchemas(options: ClearSchemasOptions): Promise<string[]> {
  const { clearRetainedSchemas: clear } = await import('./hub/clear-schemas.js');
  return clear(options);
}

/** Starts the firmware bridge (bridge/start-bridge.ts) on an open engine. */
export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const { startBridge: start } = await import('./bridge/start-bridge.js');
  return start(options);
}

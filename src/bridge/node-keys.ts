/**
 * Per-node keys for the frame MAC (docs/bridge.md, "Keys"). The keys file is text, one node a line:
 *
 *   keys-file = *( line LF )
 *   line      = [ device-id 1*WSP key ] [ *WSP "#" comment ]      ; blank lines and comments allowed
 *   device-id = [A-Za-z0-9._:-]{1,32}                            ; as in docs/sensor-frame.md
 *   key       = 32..64 hex digits (16..32 bytes)                  ; what etb_node_set_key is given
 *
 * A device id appears at most once. The file holds secrets: the bridge warns when others may read it.
 */
import { readFileSync, statSync } from 'node:fs';
import { MAX_SENSOR_KEY_BYTES, MIN_SENSOR_KEY_BYTES } from '../codec/sensor-frame.js';

export type NodeKeys = ReadonlyMap<string, Uint8Array>;

export class NodeKeysError extends Error {
  override name = 'NodeKeysError';
}

const DEVICE_ID = /^[A-Za-z0-9._:-]{1,32}$/;
const HEX = /^(?:[0-9A-Fa-f]{2})+$/;

/** Parses the text of a keys file; `source` names it in error messages. */
export function parseNodeKeys(text: string, source = 'keys file'): NodeKeys {
  const keys = new Map<string, Uint8Array>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    const where = `${source}:${i + 1}`;
    const parts = line.split(/\s+/);
    if (parts.length !== 2) throw new NodeKeysError(`${where}: expected "<device-id> <hex key>"`);
    const [id, hex] = parts as [string, string];
    if (!DEVICE_ID.test(id)) throw new NodeKeysError(`${where}: device id ${JSON.stringify(id)} is not [A-Za-z0-9._:-]{1,32}`);
    if (keys.has(id)) throw new NodeKeysError(`${where}: device id ${id} appears twice`);
    if (!HEX.test(hex) || hex.length < MIN_SENSOR_KEY_BYTES * 2 || hex.length > MAX_SENSOR_KEY_BYTES * 2) {
      throw new NodeKeysError(`${where}: the key of ${id} must be ${MIN_SENSOR_KEY_BYTES * 2}..${MAX_SENSOR_KEY_BYTES * 2} hex digits`);
    }
    keys.set(id, Uint8Array.from(Buffer.from(hex, 'hex')));
  });
  return keys;
}

/** Reads and parses a keys file; warns (once) when its mode lets group or others read it. */
export function loadNodeKeys(path: string, warn: (line: string) => void = (l) => console.warn(l)): NodeKeys {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new NodeKeysError(`cannot read keys file ${path}: ${(e as Error).message}`);
  }
  const keys = parseNodeKeys(text, path);
  if ((statSync(path).mode & 0o077) !== 0) warn(`bridge: keys file ${path} can be read by other users (chmod 600 it)`);
  return keys;
}

/**
 * Joins a SerialTransport to the ingest: COBS-split the byte stream into frames, answer each with
 * COBS(ack) 00 on the same port. A link failure is logged; the bridge keeps its other links.
 */
import { CobsSplitter, cobsFrame } from '../codec/sensor-frame.js';
import type { FrameSource } from './frame-source.js';
import type { Ingest } from './ingest.js';
import type { SerialTransport } from './serial-transport.js';
import { log } from '../log/logger.js';

export async function attachSerial(transport: SerialTransport, ingest: Ingest): Promise<void> {
  const splitter = new CobsSplitter();
  const source: FrameSource = {
    id: `serial:${transport.path}`,
    reply(ack) {
      transport.write(cobsFrame(ack)).catch((err: Error) => log('bridge').warn({ err }, `bridge: ack to ${transport.path} failed: ${err.message}`));
    },
  };
  transport.onData((chunk) => {
    for (const m of splitter.push(chunk)) {
      if (m.ok) ingest.accept(m.frame, source);
      else ingest.reject(m.error, source);
    }
  });
  transport.onError((err) => log('bridge').error({ err }, `bridge: serial ${transport.path}: ${err.message}`));
  await transport.open();
}

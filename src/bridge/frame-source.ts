/** Where a frame came from, and how to answer it. */
export interface FrameSource {
  /** Stable per link: `udp:10.0.0.7:50123`, `serial:/dev/ttyUSB0`, `mqtt:sensors/n1`. */
  readonly id: string;
  /** Sends one raw ack (the transport adds its own framing, e.g. COBS). Never throws. */
  reply(ack: Uint8Array): void;
}

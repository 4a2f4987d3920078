/**
 * The serial seam: the bridge sees a byte stream it can write to, nothing more, so the
 * `serialport` package (optional, native) and a plain TTY opened through the file system are
 * interchangeable, and tests drive a pseudo-terminal.
 *
 * Contract: open() resolves once bytes can flow; onData handlers get chunks in stream order;
 * write() resolves when the bytes are handed to the OS; close() is idempotent.
 */
export interface SerialTransport {
  readonly path: string;
  open(): Promise<void>;
  write(bytes: Uint8Array): Promise<void>;
  onData(handler: (chunk: Uint8Array) => void): void;
  /** Called once if the link fails after open (device unplugged, pty closed). */
  onError(handler: (err: Error) => void): void;
  close(): Promise<void>;
}

export type SerialOptions = {
  path: string;
  baudRate: number;
  /** 'serialport' (default): the `serialport` package; 'tty': the device node via node:fs and stty. */
  driver?: SerialDriver;
};

export type SerialDriver = 'serialport' | 'tty';

/**
 * SerialTransport over the `serialport` package, loaded on first use so the package stays
 * optional: without it, open() fails with a message that says what to install or which driver
 * to use instead.
 */
import type { SerialOptions, SerialTransport } from './serial-transport.js';

/** The part of serialport's SerialPort class this file uses (v10+). */
type SerialPortLike = {
  open(cb: (err: Error | null) => void): void;
  write(data: Uint8Array, cb: (err: Error | null | undefined) => void): boolean;
  close(cb: (err: Error | null) => void): void;
  on(event: 'data', cb: (chunk: Buffer) => void): void;
  on(event: 'error', cb: (err: Error) => void): void;
  readonly isOpen: boolean;
};
type SerialPortModule = { SerialPort: new (o: { path: string; baudRate: number; autoOpen: boolean }) => SerialPortLike };

export class SerialPackageMissingError extends Error {
  constructor(cause: unknown) {
    super(
      `serial input is unavailable: the optional 'serialport' package is not installed or its native binding does not load on ${process.platform}-${process.arch} (${cause instanceof Error ? cause.message : String(cause)}); install it (npm install serialport), or use the 'tty' driver (bridge option serial[].driver = 'tty', CLI --serial-driver tty)`,
      { cause },
    );
    this.name = 'SerialPackageMissingError';
  }
}

/** Loads `serialport`; throws SerialPackageMissingError if it is not installed. */
export async function loadSerialPort(): Promise<SerialPortModule> {
  const specifier = 'serialport'; // a variable, so type-checking does not need the package
  try {
    return (await import(specifier)) as SerialPortModule;
  } catch (e) {
    throw new SerialPackageMissingError(e);
  }
}

export function createSerialPortTransport(options: SerialOptions): SerialTransport {
  let port: SerialPortLike | null = null;
  const dataHandlers: ((chunk: Uint8Array) => void)[] = [];
  const errorHandlers: ((err: Error) => void)[] = [];
  return {
    path: options.path,
    async open() {
      const { SerialPort } = await loadSerialPort();
      const p = new SerialPort({ path: options.path, baudRate: options.baudRate, autoOpen: false });
      p.on('data', (chunk) => dataHandlers.forEach((h) => h(chunk)));
      p.on('error', (err) => errorHandlers.forEach((h) => h(err)));
      await new Promise<void>((resolve, reject) => p.open((err) => (err ? reject(err) : resolve())));
      port = p;
    },
    write(bytes) {
      const p = port;
      if (!p) return Promise.reject(new Error(`serial port ${options.path} is not open`));
      return new Promise((resolve, reject) => p.write(bytes, (err) => (err ? reject(err) : resolve())));
    },
    onData(handler) {
      dataHandlers.push(handler);
    },
    onError(handler) {
      errorHandlers.push(handler);
    },
    async close() {
      const p = port;
      port = null;
      if (!p || !p.isOpen) return;
      await new Promise<void>((resolve) => p.close(() => resolve()));
    },
  };
}

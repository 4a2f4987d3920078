/**
 * SerialTransport over a TTY device node without native packages: `stty` puts the line in raw
 * mode (no echo, no CR/LF translation on input or output: COBS frames are binary) at the baud
 * rate, node:tty reads it without blocking a thread, and writes go through a second descriptor.
 * Linux and macOS; works for USB CDC/UART devices and for pseudo-terminals (tests).
 */
import { execFile } from 'node:child_process';
import { closeSync, constants, openSync, write } from 'node:fs';
import { ReadStream } from 'node:tty';
import { promisify } from 'node:util';
import type { SerialOptions, SerialTransport } from './serial-transport.js';

const run = promisify(execFile);

export function createTtyTransport(options: SerialOptions): SerialTransport {
  let reader: ReadStream | null = null;
  let writeFd: number | null = null;
  let failed = false;
  const dataHandlers: ((chunk: Uint8Array) => void)[] = [];
  const errorHandlers: ((err: Error) => void)[] = [];
  const fail = (err: Error) => {
    if (failed) return;
    failed = true;
    errorHandlers.forEach((h) => h(err));
  };
  return {
    path: options.path,
    async open() {
      const flag = process.platform === 'darwin' ? '-f' : '-F';
      await run('stty', [flag, options.path, 'raw', '-echo', String(options.baudRate)]);
      const readFd = openSync(options.path, constants.O_RDONLY | constants.O_NOCTTY);
      writeFd = openSync(options.path, constants.O_WRONLY | constants.O_NOCTTY);
      reader = new ReadStream(readFd);
      reader.on('data', (chunk: Buffer) => dataHandlers.forEach((h) => h(chunk)));
      reader.on('error', fail);
      reader.on('end', () => fail(new Error(`serial ${options.path} closed`)));
    },
    write(bytes) {
      const fd = writeFd;
      if (fd === null) return Promise.reject(new Error(`serial ${options.path} is not open`));
      return new Promise((resolve, reject) => write(fd, bytes, (err) => (err ? reject(err) : resolve())));
    },
    onData(handler) {
      dataHandlers.push(handler);
    },
    onError(handler) {
      errorHandlers.push(handler);
    },
    async close() {
      const r = reader;
      const fd = writeFd;
      reader = null;
      writeFd = null;
      failed = true;
      if (r) r.destroy();
      if (fd !== null) closeSync(fd);
    },
  };
}

/** A raw TCP client for the request-limit tests: bytes written when the test chooses, everything the server sent, when it closed. */
import { connect, type Socket } from 'node:net';

export type RawSocket = {
  readonly socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with the ms from connect to the server closing the connection (or resetting it). */
  readonly closed: Promise<number>;
  isClosed(): boolean;
};

export async function rawSocket(port: number): Promise<RawSocket> {
  const socket = connect({ host: '127.0.0.1', port });
  const started = performance.now();
  let text = '';
  let closedAt: number | undefined;
  socket.setEncoding('utf8').on('data', (t: string) => void (text += t));
  socket.on('error', () => undefined); // a reset counts as closed
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve((closedAt = performance.now()) - started)));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => text, closed, isClosed: () => closedAt !== undefined };
}

/** Polls `condition` every 10 ms for up to `ms`; false when it never held. */
export async function eventually(condition: () => boolean, ms = 5_000): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

export const PUT_HEAD = (port: number, contentLength: number): string =>
  `POST / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/x-amz-json-1.0\r\nx-amz-target: DynamoDB_20120810.PutItem\r\n` +
  `x-amz-date: 20260101T000000Z\r\nauthorization: AWS4-HMAC-SHA256 Credential=edge/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\n` +
  `content-length: ${contentLength}\r\n\r\n`;

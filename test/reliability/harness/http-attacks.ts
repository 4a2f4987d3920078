/**
 * Hostile HTTP clients for the request-limit tests (test/reliability/slow-clients.test.ts), each
 * kept up until stopped: a slowloris holds `connections` sockets that trickle header lines and
 * never finish them, opening a new one whenever the server closes one; a body flood holds
 * `connections` requests that declare a large body, send most of it, then wait, starting again
 * (after a pause) whenever the server answers or closes. Both count what the server did to them.
 */
import { connect, type Socket } from 'node:net';

export type AttackCounts = { opened: number; closedByServer: number; answers: Map<string, number> };

export type Attack = { readonly counts: AttackCounts; stop(): void };

function counting(): AttackCounts {
  return { opened: 0, closedByServer: 0, answers: new Map() };
}

/** The status line and `__type` of what the server sent, e.g. `400 ThrottlingException`, or '' before any answer. */
function answerOf(text: string): string {
  const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
  if (status === undefined) return '';
  const type = /"__type":"[^"#]*#([A-Za-z]+)"/.exec(text)?.[1];
  return type === undefined ? status : `${status} ${type}`;
}

function keep(port: number, connections: number, counts: AttackCounts, start: (socket: Socket) => () => void, pauseMs: number): Attack {
  let stopped = false;
  const sockets = new Set<Socket>();
  const open = (): void => {
    if (stopped) return;
    const socket = connect({ host: '127.0.0.1', port });
    counts.opened++;
    sockets.add(socket);
    let text = '';
    let cleanup: () => void = () => undefined;
    socket.setEncoding('latin1').on('data', (t: string) => void (text += t.slice(0, 512)));
    socket.on('error', () => undefined);
    socket.once('connect', () => (cleanup = start(socket)));
    socket.once('close', () => {
      cleanup();
      sockets.delete(socket);
      if (stopped) return;
      counts.closedByServer++;
      const answer = answerOf(text);
      if (answer !== '') counts.answers.set(answer, (counts.answers.get(answer) ?? 0) + 1);
      setTimeout(open, pauseMs);
    });
  };
  for (let i = 0; i < connections; i++) open();
  return {
    counts,
    stop: () => {
      stopped = true;
      for (const s of sockets) s.destroy();
    },
  };
}

/** Sockets that begin a request and add one header line every `lineEveryMs`, never ending the headers; a closed one is reopened after `reopenMs`. */
export function slowloris(port: number, connections: number, lineEveryMs = 1_000, reopenMs = 10): Attack {
  return keep(port, connections, counting(), (socket) => {
    socket.write(`POST / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`);
    let n = 0;
    const timer = setInterval(() => socket.write(`x-slow-${n++}: 1\r\n`), lineEveryMs);
    return () => clearInterval(timer);
  }, reopenMs);
}

/** Requests that declare `declaredBytes`, send `sentBytes` of it as fast as the server reads, then wait. */
export function bodyFlood(port: number, connections: number, declaredBytes: number, sentBytes: number, retryPauseMs = 500): Attack {
  const chunk = Buffer.alloc(256 * 1024, 0x61);
  return keep(port, connections, counting(), (socket) => {
    socket.write(
      `POST / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/x-amz-json-1.0\r\nx-amz-target: DynamoDB_20120810.BatchWriteItem\r\n` +
        `x-amz-date: 20260101T000000Z\r\nauthorization: AWS4-HMAC-SHA256 Credential=edge/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\n` +
        `content-length: ${declaredBytes}\r\n\r\n`,
    );
    let sent = 0;
    const pump = (): void => {
      while (sent < sentBytes && !socket.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, sentBytes - sent));
        sent += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    pump();
    return () => undefined;
  }, retryPauseMs);
}

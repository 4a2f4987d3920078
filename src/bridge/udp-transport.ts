/**
 * UDP transport: one datagram = one raw frame; the ack goes back to the datagram's source address
 * (docs/sensor-frame.md, "Transports"). Socket errors are logged, never thrown at the caller.
 */
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { FrameSource } from './frame-source.js';
import { log } from '../log/logger.js';

export type UdpOptions = { host?: string; port: number };

export type UdpTransport = {
  /** The bound port (the one chosen by the OS when `port` was 0). */
  readonly port: number;
  close(): Promise<void>;
};

/** A larger receive buffer absorbs bursts while a batch's fsync blocks the event loop. */
const RECV_BUFFER_BYTES = 4 * 1024 * 1024;

export function openUdpTransport(options: UdpOptions, onFrame: (bytes: Uint8Array, source: FrameSource) => void): Promise<UdpTransport> {
  const host = options.host ?? '0.0.0.0';
  const socket: Socket = createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4', recvBufferSize: RECV_BUFFER_BYTES });
  let closed = false;
  socket.on('message', (msg, rinfo) => {
    const source: FrameSource = {
      id: `udp:${rinfo.address}:${rinfo.port}`,
      reply(ack) {
        if (closed) return;
        socket.send(ack, rinfo.port, rinfo.address, (err) => {
          if (err) log('bridge').warn({ err }, `bridge: ack to ${rinfo.address}:${rinfo.port} failed: ${err.message}`);
        });
      },
    };
    onFrame(msg, source);
  });
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    socket.once('error', onError);
    socket.bind(options.port, host, () => {
      socket.off('error', onError);
      socket.on('error', (err) => log('bridge').error({ err }, `bridge: UDP socket error: ${err.message}`));
      resolve({
        port: socket.address().port,
        close: () =>
          new Promise<void>((done) => {
            if (closed) return done();
            closed = true;
            socket.close(() => done());
          }),
      });
    });
  });
}

/**
 * The cap on a server's open connections. A connection is busy while a request on it has been
 * received (headers complete) and not yet answered, idle otherwise: before its first request's
 * headers are complete (a slowloris never gets further) and between kept-alive requests.
 *
 * At the cap, a new connection closes the connection that has been idle longest and takes its
 * place: connections that send nothing useful cannot lock clients out. Only when every connection
 * is busy is the new one refused: it is answered a 503 ServiceUnavailable in DynamoDB's shape
 * (which the AWS SDKs retry) and closed. Refusing takes a socket too, so the net layer's own hard
 * cap (`hardLimit`) drops connections beyond REFUSING_SLACK more without a word.
 */
import type { Socket } from 'node:net';

/** Sockets being refused (answer written, closing) allowed on top of the cap before the net layer drops new ones. */
export const REFUSING_SLACK = 64;
/** A refused client gets this long to read the answer before its socket is destroyed. */
const REFUSED_GRACE_MS = 1_000;

export type ConnectionGateStats = {
  readonly open: number;
  readonly busy: number;
  /** Idle connections closed to make room for a new one. */
  readonly evicted: number;
  /** Connections answered 503 and closed because every connection was busy. */
  readonly refused: number;
};

type Entry = { busyRequests: number; idleSince: number };

export class ConnectionGate {
  readonly #max: number;
  readonly #refusal: () => string;
  // Insertion order is connection order: among equally idle sockets the oldest is found first.
  readonly #open = new Map<Socket, Entry>();
  readonly #refusing = new WeakSet<Socket>();
  #evicted = 0;
  #refused = 0;

  /** `refusal`: the whole HTTP response (status line to body) written to a refused connection. */
  constructor(maxConnections: number, refusal: () => string) {
    this.#max = maxConnections;
    this.#refusal = refusal;
  }

  /** The net layer's cap (net.Server.maxConnections): the gate's plus sockets being refused. */
  get hardLimit(): number {
    return this.#max + REFUSING_SLACK;
  }

  /** Called for every accepted socket, before any byte of it is read. */
  admit(socket: Socket): void {
    if (this.#open.size >= this.#max && !this.#evictIdlest()) {
      this.#refuse(socket);
      return;
    }
    this.#open.set(socket, { busyRequests: 0, idleSince: performance.now() });
    socket.once('close', () => this.#open.delete(socket));
  }

  /** Whether `socket` was refused: requests parsed on it anyway are not answered. */
  isRefused(socket: Socket): boolean {
    return this.#refusing.has(socket);
  }

  /** A request's headers arrived on `socket`. */
  requestStarted(socket: Socket): void {
    const entry = this.#open.get(socket);
    if (entry) entry.busyRequests++;
  }

  /** The request that started on `socket` was answered (or abandoned). */
  requestEnded(socket: Socket): void {
    const entry = this.#open.get(socket);
    if (!entry || entry.busyRequests === 0) return;
    entry.busyRequests--;
    if (entry.busyRequests === 0) entry.idleSince = performance.now();
  }

  stats(): ConnectionGateStats {
    let busy = 0;
    for (const entry of this.#open.values()) if (entry.busyRequests > 0) busy++;
    return { open: this.#open.size, busy, evicted: this.#evicted, refused: this.#refused };
  }

  #evictIdlest(): boolean {
    let idlest: Socket | undefined;
    let since = Infinity;
    for (const [socket, entry] of this.#open) {
      if (entry.busyRequests === 0 && entry.idleSince < since) {
        idlest = socket;
        since = entry.idleSince;
      }
    }
    if (idlest === undefined) return false;
    this.#open.delete(idlest);
    idlest.destroy();
    this.#evicted++;
    return true;
  }

  #refuse(socket: Socket): void {
    this.#refused++;
    this.#refusing.add(socket);
    // Read and drop what the client sends meanwhile, so it gets the answer rather than a reset.
    socket.on('data', () => undefined);
    socket.end(this.#refusal());
    setTimeout(() => socket.destroy(), REFUSED_GRACE_MS).unref();
  }
}

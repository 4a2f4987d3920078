/** The one error a sensor frame or ack decoder throws, tagged with why the bytes were refused. */
import { EdgetableError } from '../model/errors.js';

/** Why bytes were refused: the bridge counts these per kind and drops the frame. */
export type FrameErrorKind = 'crc' | 'truncated' | 'oversized' | 'malformed' | 'version';

export class FrameError extends EdgetableError {
  readonly kind: FrameErrorKind;
  constructor(kind: FrameErrorKind, message: string) {
    super(`${kind}: ${message}`);
    this.kind = kind;
  }
}

export const malformed = (message: string): FrameError => new FrameError('malformed', message);

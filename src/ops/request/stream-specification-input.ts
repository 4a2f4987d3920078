/**
 * StreamSpecification as given to CreateTable or UpdateTable, read in the parse step. The schema
 * pass has checked StreamEnabled (a boolean) and a given StreamViewType (one of the view types);
 * what is left to refuse, a null specification or a null StreamViewType, is kept as a Refusal and
 * thrown first where the operation reads the specification, before its rules (which depend on the
 * table's stream for UpdateTable).
 */
import type { EdgetableError } from '../../model/errors.js';
import type { StreamViewType } from '../../table/table-definition.js';
import { convert, type Converted } from './converted.js';
import { ConstraintErrors, checkEnum } from './request-checks.js';

const STREAM_VIEW_TYPES = ['NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES', 'KEYS_ONLY'] as const;

export type StreamSpecificationInput = { readonly StreamEnabled: boolean; readonly StreamViewType?: StreamViewType };

/** undefined when absent; `nullError`: how the operation refuses a null specification. */
export function readStreamSpecificationInput(raw: unknown, nullError: () => EdgetableError): Converted<StreamSpecificationInput> | undefined {
  if (raw === undefined) return undefined;
  return convert(() => {
    if (raw === null) throw nullError();
    const s = raw as { StreamEnabled: boolean; StreamViewType?: StreamViewType | null };
    const errors = new ConstraintErrors();
    checkEnum(errors, s.StreamViewType, 'streamSpecification.streamViewType', STREAM_VIEW_TYPES);
    errors.throwIfAny();
    return Object.freeze({ StreamEnabled: s.StreamEnabled, ...(s.StreamViewType != null ? { StreamViewType: s.StreamViewType } : {}) });
  });
}

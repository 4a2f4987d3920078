/** Reading a document path out of an item. */
import type { AttributeValue, Item } from '../model/attribute-value.js';
import type { DocumentPath } from './ast.js';

/** The value at `path`, or undefined when any step is missing, out of range, or of the wrong type. */
export function getPath(item: Item | undefined, path: DocumentPath): AttributeValue | undefined {
  if (item === undefined) return undefined;
  const head = path[0] as string;
  let value: AttributeValue | undefined = Object.hasOwn(item, head) ? item[head] : undefined;
  for (let i = 1; i < path.length && value !== undefined; i++) {
    const step = path[i]!;
    if (typeof step === 'number') {
      value = 'L' in value ? value.L[step] : undefined;
    } else {
      value = 'M' in value && Object.hasOwn(value.M, step) ? value.M[step] : undefined;
    }
  }
  return value;
}

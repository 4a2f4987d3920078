/**
 * Defines `target[name] = value` as an own, enumerable property even when `name` is
 * `__proto__`, where plain assignment would replace the prototype instead (attribute names come
 * from callers and may be anything).
 */
export function setOwn<T>(target: { [name: string]: T }, name: string, value: T): void {
  if (name === '__proto__') {
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[name] = value;
  }
}

/** Sets an own data property, even for a key such as `__proto__`. */
export function defineValue(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  })
}

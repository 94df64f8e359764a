/**
 * True for a key refused in arguments and policies, because it can reach an object's prototype:
 * `__proto__`, `constructor`, `prototype`. A switch: every declared argument of every step is
 * tested.
 */
export function isForbiddenKey(key: string): boolean {
  switch (key) {
    case '__proto__':
    case 'constructor':
    case 'prototype':
      return true
    default:
      return false
  }
}

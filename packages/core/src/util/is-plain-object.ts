export { isPlainObject } from '@plan/json'

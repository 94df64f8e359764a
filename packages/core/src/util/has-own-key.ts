export { hasOwnKey } from '@plan/json'

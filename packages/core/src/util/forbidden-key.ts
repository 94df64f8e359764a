export { isForbiddenKey } from '@plan/json'

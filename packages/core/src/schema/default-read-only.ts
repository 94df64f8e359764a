export { DEFAULT_READ_ONLY, REPOSITORY_CODE_PATHS } from '@plan/shell/common'

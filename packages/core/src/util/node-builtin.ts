export { loadNodeBuiltin, nodeBuiltin } from '@plan/shell/common'

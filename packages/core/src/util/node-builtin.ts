export { hostProcess, loadNodeBuiltin, nodeBuiltin } from '@plan/shell/common'

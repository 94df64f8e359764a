export { findEncodedTraversal, findNormalizedSeparator } from '@plan/shell/common'

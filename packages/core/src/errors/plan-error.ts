export { hasErrorMarker, PlanError, type PlanErrorOptions } from '@plan/shell/common'

/**
 * The issue, error and path-scope foundation that the command checks stand on and that
 * `@plan/core` shares: issue codes and shapes, the error classes, the lexical workspace check,
 * and the code-running parts of a git directory.
 *
 * @packageDocumentation
 */
export { standsFor, withBuildFileAlternatives } from './checks/build-file-alternatives.js'
export { findEncodedTraversal, findNormalizedSeparator } from './checks/find-encoded-traversal.js'
export {
  checkPathLexical,
  checkPathSlowly,
  describe,
  findPathDenial,
  isWithin,
  MAX_PATH_LENGTH,
  resolvePath,
} from './checks/path-scope.js'
export {
  deniedHint,
  outsideHint,
  type ProtectedList,
  placeInList,
  readOnlyHint,
} from './checks/path-wording.js'
export {
  isUnderAny,
  isWithinRelative,
  type RelativeEntries,
  type RelativeScope,
  relativeScope,
} from './checks/relative-scope.js'
export {
  codePartBelow,
  type DiskView,
  GIT_DIRECTORY_NAME,
  looksLikeGitDirectory,
  REPOSITORY_CODE_PATHS,
  repositoryCodePart,
} from './checks/repository-code-paths.js'
export {
  createResolver,
  firstLinkOnWay,
  loadResolvingFileSystem,
  MAX_SYMLINK_HOPS,
  type Resolution,
  type Resolve,
  type ResolvingFileSystem,
  resolvingFileSystem,
} from './checks/resolve-on-disk.js'
export { hasErrorMarker, PlanError, type PlanErrorOptions } from './errors/plan-error.js'
export { PolicyError } from './errors/policy-error.js'
export { createIssue } from './issues/create-issue.js'
export { formatIssues, formatPath } from './issues/format-issues.js'
export { DEFAULT_READ_ONLY } from './schema/default-read-only.js'
export type { CommandCheckResult } from './types/command-check-result.js'
export type { PathAccess, PathCheckResult, PathDenial, PathScope } from './types/path-scope.js'
export type { IssueCode, PlanIssue } from './types/plan-issue.js'
export { errorCode } from './util/error-code.js'
export { isRecord } from './util/is-record.js'
export { int32At, itemAt, numberAt, popped, stringAt, valueAt } from './util/item-at.js'
export { hostProcess, loadNodeBuiltin, nodeBuiltin } from './util/node-builtin.js'
export { posix } from './util/posix-path.js'
export { someOf } from './util/some-of.js'
export {
  hasUnsafeCharacter,
  hasUnsafeCommandCharacter,
  isUnsafeCodePoint,
  replaceUnsafeCharacters,
  UNSAFE_CHARACTER_CLASS,
} from './util/unsafe-characters.js'

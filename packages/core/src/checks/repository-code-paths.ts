export {
  codePartBelow,
  type DiskView,
  GIT_DIRECTORY_NAME,
  looksLikeGitDirectory,
  REPOSITORY_CODE_PATHS,
  repositoryCodePart,
} from '@plan/shell/common'

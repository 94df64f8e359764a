import { beforeAll, describe, expect, it } from 'vitest'
import { checkerOf, verdictOf } from './__fixtures__/verdicts.js'
import type { CommandChecker } from './create-command-checker.js'

let checker: CommandChecker
beforeAll(async () => {
  checker = await checkerOf(['git', 'find', 'wc', 'du', 'sort', 'rsync', 'tar'])
})

const verdict = (command: string) => verdictOf(checker, command)

describe('options that read the paths to act on from a file', () => {
  it('should refuse every such option, since the paths in the list go unchecked', () => {
    for (const command of [
      'git add --pathspec-from-file=list',
      'git checkout HEAD --pathspec-from-file list',
      'git restore --pathspec-from-file=list --pathspec-file-nul',
      'git rm --cached --pathspec-from-file=list',
      'git reset --pathspec-from-file=list',
      'git commit --pathspec-from-file=list -m x',
      'git stash push --pathspec-from-file=list',
      'git add --pathspec-from=list',
      'find -files0-from list -name x',
      'wc --files0-from=list',
      'du --files0-from list',
      'sort --files0-from=list',
      'rsync -a --files-from=list . dst',
      'tar -cf out.tar -T list',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'command_inline_code' })
  })

  it('should allow the same programs naming their paths as operands', () => {
    for (const command of [
      'git add src/a.ts',
      'git checkout HEAD -- src/a.ts',
      'git rm --cached build/x.js',
      'find src -name "*.ts"',
      'wc -l src/a.ts',
      'du -sh src',
      'sort -u names.txt',
      'rsync -a src/ dst/',
      'tar -cf out.tar src',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'allow' })
  })
})

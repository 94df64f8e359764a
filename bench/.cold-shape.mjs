const { createPlanCompiler } = await import('@plan/core')
const compiler = await createPlanCompiler({ version: 1, workspace: { roots: ['/srv/repo'] }, tools: { view_file: { args: { file: { type: 'path' } } }, run_command: { args: { command: { type: 'command' } } } }, commands: { allow: ['git'] } })
const result = compiler.validate({ steps: [{ id: 'a', tool: 'view_file', args: { file: 'src/a.ts' } }, { id: 'b', tool: 'run_command', args: { command: 'git status' }, depends_on: ['a'] }] })
if (!result.success) throw new Error('should be approved')

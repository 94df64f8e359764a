import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { dirname, relative, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { policySchema } from '@plan/core/schemas'
import { starterPolicyFromTools } from '../init/starter-policy-from-tools.js'
import { ChildProcessTransport } from '../proxy/child-process-transport.js'
import { spawnServerProcess } from '../proxy/spawn-server.js'
import { serverNames } from '../tools/server-names.js'
import { pinnedDefinition } from '../tools/tool-definition.js'
import type { InitCommand } from './parse-cli-args.js'
import { definedEnv, EXIT_OK, EXIT_USAGE, type PlanMcpIo } from './plan-mcp-io.js'
import { definitionsFileOf, writeReviewed } from './reviewed-definitions.js'

/** Every tool the server started from `server` lists, all pages. */
export async function listServerTools(server: readonly string[], io: PlanMcpIo): Promise<Tool[]> {
  const transport = new ChildProcessTransport(server, spawnServerProcess, {
    cwd: io.cwd,
    env: definedEnv(io.env),
  })
  const client = new Client({ name: 'plan-mcp-init', version: '1.0.0' })
  await client.connect(transport)
  try {
    const tools: Tool[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor })
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return tools
  } finally {
    await client.close()
  }
}

/** `plan-mcp init`: writes a starting policy from the server's tools. */
export async function runInit(command: InitCommand, io: PlanMcpIo): Promise<number> {
  const toStdout = command.output === '-'
  const output = resolve(io.cwd, command.output)
  if (!toStdout && existsSync(output) && !command.force) {
    io.stderr.write(`plan-mcp: ${output} exists; pass --force to overwrite it\n`)
    return EXIT_USAGE
  }
  const tools = await listServerTools(command.server, io)
  const policyDir = toStdout ? io.cwd : dirname(output)
  const root = relative(policyDir, resolve(io.cwd, command.root)) || '.'
  const policy = starterPolicyFromTools(tools, { root, serverName: command.serverName })
  // the generator's output must be a valid policy before anyone narrows it
  policySchema.parse(policy)
  const text = `${JSON.stringify(policy, null, 2)}\n`
  if (toStdout) io.stdout.write(text)
  else {
    await writeFile(output, text)
    const names = serverNames(command.serverName)
    const reviewed = Object.fromEntries(
      tools.map((tool) => [names.qualify(tool.name), pinnedDefinition(tool)]),
    )
    await writeReviewed(definitionsFileOf(output), reviewed)
  }
  const names = tools.map((tool) => tool.name).join(', ')
  io.stderr.write(
    `plan-mcp: ${toStdout ? 'printed' : `wrote ${output}`}: ${tools.length} tools (${names}). Narrow it before use: remove tools you do not need, check each path's access, list programs in commands.allow.\n`,
  )
  return EXIT_OK
}

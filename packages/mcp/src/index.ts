export { guardMcpClient } from './client/guard-mcp-client.js'
export type { GuardedMcpTransport } from './client/guard-mcp-transport.js'
export { guardMcpTransport } from './client/guard-mcp-transport.js'
export type {
  AllowedMcpResource,
  AuthorizeMcpResource,
  RefusedMcpResource,
} from './guard/authorize-mcp-resource.js'
export type {
  AllowedMcpCall,
  McpCallGuard,
  McpGuardOptions,
  McpGuardSettings,
  RefusedMcpCall,
} from './guard/create-mcp-call-guard.js'
export { createMcpCallGuard } from './guard/create-mcp-call-guard.js'
export type { DenialResult } from './guard/denial-result.js'
export { denialResult, denialText } from './guard/denial-result.js'
export type {
  McpResourcesMode,
  ResourceCheck,
  ResourceRefusal,
} from './guard/resource-check.js'
export type { ListedTool } from './init/policy-from-tools.js'
export { policyFromTools } from './init/policy-from-tools.js'
export type { StarterPolicyOptions } from './init/starter-policy-from-tools.js'
export { starterPolicyFromTools } from './init/starter-policy-from-tools.js'
export { ChildProcessTransport } from './proxy/child-process-transport.js'
export type {
  McpGuardHttpHandler,
  McpGuardHttpHandlerOptions,
  McpHttpEndpoint,
} from './proxy/create-mcp-guard-http-handler.js'
export { createMcpGuardHttpHandler } from './proxy/create-mcp-guard-http-handler.js'
export type {
  McpGuardProxy,
  McpGuardProxyOptions,
  McpProxyEnds,
  McpServerCommand,
} from './proxy/create-mcp-guard-proxy.js'
export { createMcpGuardProxy } from './proxy/create-mcp-guard-proxy.js'
export type { SpawnServer, SpawnServerOptions } from './proxy/spawn-server.js'
export { spawnServerProcess } from './proxy/spawn-server.js'

/**
 * MCP both ways: the stdio bridge (servers' tools in, as proxies) and the server export
 * (the registry out). The entry `effect-tool-system/mcp`.
 *
 * @module effect-tool-system/mcp
 * @since 0.1.0
 */
export type { McpBridgeOptions, McpBridgeService, SkippedServer } from "./bridge.js"
export { McpCallError } from "./callRequest.js"
export { McpOutputMismatch } from "./outputCheck.js"
export {
  type McpChangedPart,
  McpNotPending,
  type McpToolChange,
  type McpToolDefinition,
  McpToolEvent
} from "./changes.js"
export {
  loadMcpConfig,
  McpConfigError,
  McpHttpServerConfig,
  McpOAuthConfig,
  McpProtocolMode,
  McpServerConfig,
  type McpServersConfig,
  McpStdioServerConfig,
  parseMcpConfig,
  type ParsedMcpConfig
} from "./config.js"
export { McpConnectError } from "./connection.js"
export { proxyName, type ProxyTarget } from "./names.js"
export { capText, resultText } from "./proxy.js"
export { makeRawTool, type RawToolOptions } from "./rawTool.js"
export { layerMcpHttp, type McpHttpOptions, type McpHttpServer, serveMcpHttp } from "./http.js"
export type { McpHttpAuthOptions } from "./httpAuth.js"
export type { McpResultFilesOptions } from "./resultFiles.js"
export type { McpHttpSessionOptions } from "./httpSessions.js"
export { mcpToolOf } from "./listing.js"
export {
  makeMcpServer,
  makeMcpServerFactory,
  type McpConfirmation,
  McpServeError,
  type McpServeOptions,
  toCallToolResult
} from "./server.js"
export { serveMcp } from "./serve.js"
export type { ServerStatus as McpServerStatus } from "./serverHandle.js"
export {
  type McpCommandOptions,
  type McpStdioOptions,
  type McpStdioStreams,
  runMcpCommand,
  serveMcpStdio,
  withMcpConfigFile
} from "./stdio.js"
export { McpBridge } from "../../services/McpBridge.js"
export {
  type McpElicitationAnswer,
  McpElicitation,
  type McpElicitationField,
  type McpElicitationFieldBase,
  type McpElicitationOption,
  type McpElicitationRequest,
  type McpElicitationSchema,
  type McpElicitationService,
  type McpElicitationValue
} from "../../services/McpElicitation.js"
export {
  type McpAuthorizationGrant,
  type McpAuthorizationRequest,
  McpOAuth,
  type McpOAuthClient,
  type McpOAuthCredentials,
  McpOAuthError,
  type McpOAuthService,
  type McpOAuthTokens,
  type McpTokenStore,
  type McpTokenStoreKey
} from "../../services/McpOAuth.js"

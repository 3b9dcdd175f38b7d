/**
 * Verified connections to the estate's upstream MCP servers (`@tool-estate/core/gateway`): the
 * {@linkcode connectUpstreams} connector a `Gateway` runs over — mutual TLS with SPIFFE ids or
 * pinned certificates for HTTP upstreams, pinned binaries and a scrubbed environment for stdio
 * ones. A runtime edge: it uses `node:https`, `node:fs` and `node:child_process`.
 *
 * @module
 */
export {
  connectUpstreams,
  type ConnectUpstreamsOptions,
  type GatewayTls,
  type UpstreamStderr,
} from "./identity.ts";
export {
  type IdentityEvidence,
  IdentityRefusedError,
  type UpstreamConnector,
  type VerifiedTransport,
} from "./upstream.ts";
export type { StreamableHttpClientOptions } from "../mcp/transports/http_client.ts";
export type { Transport, TransportSendOptions } from "../jsonrpc/transport.ts";
export type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/types.ts";
export type { HttpUpstream, ServerRecord, StdioUpstream } from "../estate/server_record.ts";

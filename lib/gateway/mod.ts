/**
 * The gateway: the estate's tools that live in MCP servers it did not write — the servers'
 * records, the identity each must prove ({@linkcode UpstreamConnector}), the {@linkcode Gateway}
 * that forwards calls to them and holds them to their registered versions, and the drift it
 * classifies and reports.
 *
 * @module
 */
export type { HttpUpstream, ServerRecord, StdioUpstream } from "../estate/server_record.ts";
export {
  type IdentityEvidence,
  IdentityRefusedError,
  type UpstreamConnector,
  type VerifiedTransport,
} from "./upstream.ts";
export { Gateway, type GatewayOptions } from "./gateway.ts";
export {
  type AnnotationChange,
  classifyDrift,
  type ClassifyDriftOptions,
  type DescriptionLint,
  type DescriptionSignal,
  type DriftAssessment,
  type TextChange,
} from "./drift.ts";
export type {
  DriftEvent,
  DriftEventKind,
  GatewayLogEntry,
  GatewayLogFields,
} from "./gateway_log.ts";
export type {
  CircuitState,
  ConnectionState,
  ServerStatus,
  ToolState,
  ToolStatus,
} from "./status.ts";

/**
 * The governed estate: tool specs and side effects, the immutable registry with discovery, the
 * servers that serve tools the estate did not write, tool-poisoning lint, drift records, and
 * argument repair.
 *
 * @module
 */
export {
  annotationsFor,
  canSee,
  classificationRank,
  CLIENT_DIRECTIONS,
  type ClientDirection,
  DATA_CLASSIFICATIONS,
  type DataClassification,
  isServerId,
  isToolName,
  keepToolSpec,
  type KeepToolSpecOptions,
  lintDescription,
  type McpTool,
  META_PREFIX,
  META_VERSION_KEY,
  parseToolSpec,
  type Principal,
  RETRYABLE,
  SIDE_EFFECTS,
  type SideEffect,
  toMcpTool,
  TOOL_SPEC_FIELDS,
  type ToolAnnotations,
  type ToolSpec,
  ToolSpecError,
} from "./spec.ts";
export {
  type DeprecateVersionOptions,
  type LifecycleEntry,
  LifecycleError,
  type LifecycleState,
  type VersionRecord,
} from "./lifecycle.ts";
export {
  type PlanOptions,
  PublishError,
  type PublishErrorDetails,
  type PublishPlan,
  type PublishRefusal,
  type PublishResult,
  type ReplayLine,
} from "./publish_plan.ts";
export { type PublishTrace, type TracedSchema } from "./publish_trace.ts";
export {
  DEFAULT_IDEMPOTENCY_LEASE_MS,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  IDEMPOTENCY_META_KEY,
  type IdempotencyBinding,
  type IdempotencyClaim,
  type IdempotencyEntry,
  type IdempotencyOutcome,
  type IdempotencyRef,
  type IdempotencyStore,
  IDEMPOTENT_REPLAY_META_KEY,
  isIdempotencyKey,
  type MaybePromise,
  memoryIdempotencyStore,
  sameBinding,
} from "./idempotency.ts";
export {
  DEPRECATION_META_KEY,
  deprecationHeaders,
  type DeprecationNotice,
  deprecationNotice,
  deprecationText,
} from "./deprecation.ts";
export {
  type CallSource,
  type RejectedCall,
  type Rejections,
  type RejectionsAtNode,
  replayCalls,
  replayCallStream,
  type ReplayOptions,
  type StoredCall,
} from "./replay.ts";
export {
  RetirementError,
  type RetirementOptions,
  type RetirementPlan,
  type RetirementRefusal,
  type RetirementRules,
  type RetireVersionOptions,
} from "./retirement_plan.ts";
export {
  type EstateEvent,
  type RegistryOptions,
  type RestoreOptions,
  type StoredVersion,
  ToolRegistry,
} from "./registry.ts";
export {
  dueRetirement,
  isCalendarDate,
  retireAfterProblem,
  retirementInstant,
  scheduledRetirement,
  utcDate,
} from "./retirement.ts";
export {
  type CallerImpact,
  type CallerTally,
  type ImpactOptions,
  type VersionImpact,
  versionImpact,
  versionImpactStream,
} from "./impact.ts";
export { type CallsOnDay, CallStats } from "./call_stats.ts";
export { type Repair, repairArguments, type RepairOptions, type RepairResult } from "./repair.ts";
export {
  checkDraft,
  type CheckDraftOptions,
  type DraftFinding,
  type DraftReport,
  type FindingSeverity,
  type FindingTarget,
  type TextSpan,
} from "./check_draft.ts";
export {
  type HttpUpstream,
  parseServerRecord,
  type ServerRecord,
  ServerRecordError,
  type StdioUpstream,
} from "./server_record.ts";
export {
  type RegisterServerOptions,
  type RegisterServerResult,
  type ServedElsewhere,
  type ServerLookup,
  type ServerRefusal,
  ServerRegistrationError,
} from "./servers.ts";
export {
  HIDDEN_POISONING_CODES,
  type PoisoningCode,
  type PoisoningOptions,
  type PoisoningSignal,
  poisoningSignals,
  showHiddenCharacters,
  specPoisoning,
  type SpecPoisoningSignal,
} from "./poisoning.ts";
export { DRIFT_KINDS, type DriftKind, type DriftRecord, driftRecordProblems } from "./drift.ts";
export {
  type DriftNotice,
  type DriftNoticeCode,
  driftNotices,
  type DriftRegistry,
  quarantinesInForce,
} from "./drift_notices.ts";
export { CallIndex, type IndexReplayOptions } from "./call_index.ts";
export {
  hiddenToolMentions,
  type ToolMention,
  toolMentionMessage,
  type ToolVersions,
} from "./tool_mentions.ts";
export {
  admitsEveryone,
  everyoneMeets,
  type Guarded,
  meetsRequirement,
  type MeetsRequirementOptions,
  type Requirement,
} from "./requirement.ts";
export { ESTATE_CONFIG_FILE, type EstateConfig, estateConfigProblems } from "./estate_config.ts";
export {
  type CallLimit,
  CallLimiter,
  callLimitProblems,
  LIMIT_WINDOWS,
  type LimitEach,
  type LimitRefusal,
  limitRefusal,
  limitRefusalText,
  limitText,
  type LimitWindow,
  memoryQuotaCounter,
  type QuotaCounter,
  type QuotaTake,
  quotaTakes,
} from "./limits.ts";
export {
  callApprovalFor,
  callApprovalMayHold,
  callApprovalProblems,
  type CallApprovalRule,
  callApprovalRuleText,
  decidePendingCall,
  type DecisionRefusal,
  DEFAULT_APPROVAL_MINUTES,
  mayViewPendingCall,
  memoryPendingCalls,
  type PendingCall,
  pendingCallAt,
  PendingCallDecisionError,
  type PendingCallState,
  type PendingCallStore,
} from "./call_approvals.ts";
export {
  argumentsDigest,
  claimApprovedCall,
  decideCall,
  holdCall,
  type PendingCallDesk,
  pendingCallFor,
  pendingCallsFor,
  settleExpiry,
} from "./pending_calls.ts";
export { breakingCall } from "./breaking_call.ts";
export type { BreakingCall, BreakingCallSubject } from "./breaking_call.ts";
export {
  APPROVAL_TRIGGERS,
  type ApprovalPolicy,
  approvalPolicyProblems,
  type ApprovalReason,
  type ApprovalRequirement,
  approvalRequirement,
  approvalRules,
  type ApprovalSubject,
  type ApprovalTrigger,
  mayApprove,
} from "./approval.ts";
export {
  approvalRefusal,
  type ApprovalStatus,
  approvalStatus,
  newProposal,
  type Proposal,
  type ProposalApproval,
  type ProposalClassification,
  ProposalError,
  type ProposalEvent,
  proposalEvent,
  type ProposalRejection,
  type ProposalState,
  shortProposalId,
} from "./proposal.ts";
export {
  changeTask,
  compareTaskAge,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_MS,
  finishTask,
  isTerminalTaskStatus,
  type MemoryTaskStore,
  memoryTaskStore,
  type NewTaskOptions,
  newTaskRecord,
  setTaskStatus,
  TASK_STATUSES,
  type TaskError,
  taskExpired,
  type TaskOutcome,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  visibleTask,
} from "./tasks.ts";
export {
  AUDIT_GENESIS,
  AUDIT_KINDS,
  auditArguments,
  type AuditBreak,
  type AuditEvent,
  auditEventProblems,
  type AuditFilter,
  auditHashText,
  type AuditHead,
  type AuditKind,
  type AuditRecord,
  auditRecordMatches,
  auditRecordProblems,
  auditRecordText,
  type AuditSettings,
  auditSettingsProblems,
  type AuditSink,
  type AuditVerdict,
  type ClassifiedArguments,
  EMPTY_AUDIT_HEAD,
  normalizeAuditEvent,
  sealAudit,
  type SealAuditOptions,
  sealAuditWith,
  sha256Hex,
  verifyAuditChain,
  type VerifyAuditOptions,
} from "./audit.ts";
export {
  type AuditCheckpoint,
  auditCheckpointProblems,
  type AuditKey,
  type AuditKeyFiles,
  checkpointText,
  generateAuditKeys,
  importAuditKey,
  signAuditCheckpoint,
  verifyAuditCheckpoint,
} from "./audit_checkpoint.ts";

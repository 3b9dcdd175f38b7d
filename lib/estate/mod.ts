/**
 * The governed estate: tool specs and side effects, the immutable registry with discovery, and
 * argument repair.
 *
 * @module
 */
export {
  annotationsFor,
  canSee,
  classificationRank,
  DATA_CLASSIFICATIONS,
  type DataClassification,
  isToolName,
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
  type CallSource,
  type EstateEvent,
  type LifecycleEntry,
  LifecycleError,
  type LifecycleState,
  type PlanOptions,
  PublishError,
  type PublishPlan,
  type PublishRefusal,
  type PublishResult,
  type RegistryOptions,
  type RejectedCall,
  type Rejections,
  type RejectionsAtNode,
  replayCalls,
  RetirementError,
  type RetirementOptions,
  type RetirementPlan,
  type RetirementRefusal,
  type RetirementRules,
  type RetireVersionOptions,
  type StoredCall,
  ToolRegistry,
  type VersionRecord,
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
} from "./impact.ts";
export { type Repair, repairArguments, type RepairOptions, type RepairResult } from "./repair.ts";
export {
  checkDraft,
  type DraftFinding,
  type DraftReport,
  type FindingSeverity,
  type FindingTarget,
} from "./check_draft.ts";
export { CallIndex } from "./call_index.ts";
export { hiddenToolMentions, type ToolMention, toolMentionMessage } from "./tool_mentions.ts";
export {
  admitsEveryone,
  everyoneMeets,
  type Guarded,
  meetsRequirement,
  type Requirement,
} from "./requirement.ts";

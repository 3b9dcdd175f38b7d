/**
 * The governed estate: argument repair (tool specs, the registry and discovery follow).
 *
 * @module
 */
export { type Repair, repairArguments, type RepairOptions, type RepairResult } from "./repair.ts";

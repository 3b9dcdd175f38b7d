/**
 * The stateless 2026-07-28 revision under its old module name: everything here is re-exported
 * from `rev2026_07_28.ts` (the revision's rules) and `era.ts` (the era decision), where new code
 * imports it from.
 *
 * @deprecated Import from `rev2026_07_28.ts` or `era.ts`.
 * @module
 */
export {
  checkModernRequest,
  decodeHeaderValue,
  MODERN_META,
  MODERN_METHODS,
  MODERN_PROTOCOL_VERSIONS,
  type ModernEnvelope,
  modernHeaderProblem,
  readModernEnvelope,
} from "./rev2026_07_28.ts";
export { isModernMessage } from "./era.ts";

/**
 * Compatibility: semantic versions and version constraints.
 *
 * @module
 */

export { bumpFor, compareVersions, isValidConstraint, satisfies, Version } from "./semver.ts";
export type { ReleaseType, VersionParts } from "./semver.ts";

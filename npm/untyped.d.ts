// npm's semver ships no types; lib/compat/semver.ts types the few functions it uses itself.
declare module "semver";

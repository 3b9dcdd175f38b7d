// npm packages the library imports that ship no types (Deno types them as `any`; so does tsc).
declare module "semver";

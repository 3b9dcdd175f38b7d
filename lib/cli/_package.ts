/**
 * The package's name and version as the CLI states them (SARIF's tool version, `estate --version`,
 * the `$schema` line `estate init` writes). A test holds them to `deno.json`'s `name` and
 * `version`, so the compiled CLI needs no JSON import.
 *
 * @module
 */

/** The package's name, on JSR and npm. */
export const PACKAGE_NAME = "@tool-estate/core";

/** The package's version. */
export const PACKAGE_VERSION = "0.1.0";

/** Where the published tool-file JSON Schema is served (JSR serves a package's files). */
export const TOOL_SCHEMA_URL =
  `https://jsr.io/${PACKAGE_NAME}/${PACKAGE_VERSION}/schemas/tool.schema.json`;

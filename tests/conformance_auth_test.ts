/**
 * The MCP conformance suites' authorization scenarios, resource-server side. Neither
 * @modelcontextprotocol/conformance 0.1.16 nor 0.2.0-alpha.12 has any: their `auth/*` scenarios
 * test a client against the suite's own mock resource and authorization servers, and the alpha's
 * `authorization` command tests an authorization server — nothing there drives an MCP server that
 * is a protected resource. So no server-side authorization scenario runs here and none is listed
 * as an expected failure; tests/http_oauth_test.ts and tests/peer_sdk_oauth_test.ts check what
 * the specification asks of the resource server instead. This test keeps that true: a version of
 * the suite that brings server-side authorization scenarios fails it, naming them, so they get run.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url).pathname;

/** The scenarios `conformance list` names under a heading that starts with `heading`. */
async function listed(version: string, heading: string): Promise<string[]> {
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `npm:@modelcontextprotocol/conformance@${version}`,
      "list",
    ],
    cwd: ROOT,
    stdin: "null",
    stderr: "null",
  }).output();
  assert.equal(code, 0);
  const out: string[] = [];
  let inside = false;
  for (const line of new TextDecoder().decode(stdout).split("\n")) {
    if (/^\S/.test(line)) inside = line.startsWith(heading);
    const m = /^\s+-\s+(\S+)/.exec(line);
    if (inside && m) out.push(m[1]);
  }
  return out;
}

for (const version of ["0.1.16", "0.2.0-alpha.12"]) {
  Deno.test(`conformance ${version}: no server scenario concerns authorization (the auth ones are client scenarios)`, async () => {
    const server = await listed(version, "Server scenarios");
    assert.ok(
      server.length > 20,
      `the server scenarios were read: ${server.length}`,
    );
    const auth = server.filter((s) =>
      /auth|oauth|token|bearer|scope|protected-resource|www-authenticate/i.test(
        s,
      )
    );
    assert.deepEqual(
      auth,
      [],
      "run these against the protected resource (tests/http_oauth_test.ts)",
    );
    const client = await listed(version, "Client scenarios");
    assert.ok(
      client.some((s) => s.startsWith("auth/")),
      "the auth scenarios are the client's",
    );
  });
}

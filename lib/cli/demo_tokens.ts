/**
 * The example estate's demo bearer tokens. `corpus/principals.json` stores only their SHA-256
 * (`tokenSha256`, written by `scripts/make_corpus.ts`); `estate serve` prints a principal's demo
 * token while its hash still matches, so the demo keeps working and a rotated token is never
 * printed.
 *
 * @module
 */

/** Each example principal's demo token, by principal id. */
export const DEMO_TOKENS: Readonly<Record<string, string>> = {
  "retail-agent": "demo-token-retail-agent",
  "wholesale-operator": "demo-token-wholesale-operator",
  "group-risk-analyst": "demo-token-group-risk-analyst",
};

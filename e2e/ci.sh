#!/usr/bin/env bash
# The end-to-end tests as one CI step: e2e/setup.sh (installs what is missing; seconds when
# cached), then one pass of each browser test:
#   - e2e/run.mjs, the VS Code extension: packages extension/, drives code-server + Chromium through
#     three scenarios (the corpus fixture with its quick fix; a repository made by `estate init`,
#     whose Problems panel must equal `estate check --format json` there; a multi-root workspace
#     of two such repositories);
#   - e2e/console.mjs, the web console of `estate serve` in Chromium: two principals' estates
#     against the MCP endpoint's tools/list, a hidden tool's 404, a CLI publish appearing live, a
#     diff with its witness, an approval that completes a held call, axe-core on every page.
# `deno` must be on PATH (or DENO=path): the scratch estates and repositories are made, checked
# and served with this repository's cli.ts.
# setup.sh prints its timings; each test timestamps its checks and ends with `N passed, M failed`.
# Both run even when the first fails; exits non-zero when setup fails or any check of either fails.
# Screenshots and logs: e2e/artifacts/.
#
# Usage: bash e2e/ci.sh            (VSIX=path/to.vsix to test a prebuilt package)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

bash "$here/setup.sh"
# Each test bounds every wait and has its own watchdog (5 and 4 min); this is the last resort.
status=0
timeout --kill-after=30 900 node "$here/run.mjs" || status=1
timeout --kill-after=30 600 node "$here/console.mjs" || status=1
exit "$status"

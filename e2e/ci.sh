#!/usr/bin/env bash
# The VS Code end-to-end test as one CI step: e2e/setup.sh (installs what is missing; seconds when
# cached), then one pass of e2e/run.mjs (packages extension/, drives code-server + Chromium through
# three scenarios: the corpus fixture with its quick fix; a repository made by `estate init`, whose
# Problems panel must equal `estate check --format json` there; a multi-root workspace of two such
# repositories). `deno` must be on PATH (or DENO=path): the scratch repositories are made and
# checked with this repository's cli.ts.
# setup.sh prints its timings; run.mjs timestamps each check and ends with `N passed, M failed`.
# Exits non-zero when setup fails or any check fails. Screenshots and logs: e2e/artifacts/.
#
# Usage: bash e2e/ci.sh            (VSIX=path/to.vsix to test a prebuilt package)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

bash "$here/setup.sh"
# run.mjs bounds every wait and has its own watchdog (5 min); this is the last resort.
exec timeout --kill-after=30 900 node "$here/run.mjs"

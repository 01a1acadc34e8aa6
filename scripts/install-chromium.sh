#!/usr/bin/env bash
# Makes sure a headless-capable Chromium is installed, and prints its path as the last line of standard output.
#
# The alert-test report's browser test (test/cli/test-alerts-report-browser.test.ts) opens the HTML page in a real
# browser: Debian's `chromium` package, which puts the browser at /usr/bin/chromium. Run by that test's setup when
# the browser is absent, and by .ci/run before the suites. Idempotent: when the browser is there it prints the path
# and exits at once (no apt, no network). Otherwise it installs the package with apt-get, as root or through a
# password-less sudo; anywhere else it exits 1 with one line saying what to do.
#
# Usage: bash scripts/install-chromium.sh
#   CHROMIUM=/path/to/chromium   use that browser instead (checked to run, never installed)
set -euo pipefail

say() { printf 'install-chromium: %s\n' "$*" >&2; }

# A browser that answers --version is a browser that is installed; a dangling link or a stub is not.
works() { [[ -x "$1" ]] && "$1" --version >/dev/null 2>&1; }

if [[ -n "${CHROMIUM:-}" ]]; then
  if works "$CHROMIUM"; then
    printf '%s\n' "$CHROMIUM"
    exit 0
  fi
  say "CHROMIUM=$CHROMIUM does not run (\`$CHROMIUM --version\` failed)"
  exit 1
fi

for candidate in /usr/bin/chromium /usr/bin/chromium-browser; do
  if works "$candidate"; then
    printf '%s\n' "$candidate"
    exit 0
  fi
done

if ! command -v apt-get >/dev/null 2>&1; then
  say "no Chromium at /usr/bin/chromium and no apt-get to install Debian's package; install Chromium and set CHROMIUM to its path"
  exit 1
fi

as_root=()
if [[ "$(id -u)" != 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    say "installing Debian's chromium package needs root: run \`sudo apt-get install -y chromium\`, or set CHROMIUM to a browser's path"
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing (a fresh container) or stale (a security update replaced the version they name,
# so its download answers 404): read them again only when the package has no candidate or the install fails.
if ! apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
  say "reading the package lists (apt-get update)"
  "${as_root[@]}" apt-get update -qq >&2
fi
say "installing Debian's chromium package"
if ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >&2; then
  "${as_root[@]}" apt-get update -qq >&2
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >&2
fi

if works /usr/bin/chromium; then
  printf '%s\n' /usr/bin/chromium
  exit 0
fi
say "the chromium package installed, but /usr/bin/chromium does not run"
exit 1

#!/usr/bin/env bash
# Headless Chromium for the web app's end-to-end tests (packages/web/test/e2e.test.ts), driven by
# playwright-core. Debian's package, installed once; a no-op when /usr/bin/chromium exists.
# Never `npx playwright install`: the machines have no internet beyond the npm registry and Debian.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-chromium: /usr/bin/chromium is missing and this is not root; install Debian's 'chromium' package" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 || {
  apt-get update >/dev/null 2>&1
  apt-get install -y --no-install-recommends chromium >/dev/null
}
/usr/bin/chromium --version 2>/dev/null | grep -v 'unexpected operator' || true

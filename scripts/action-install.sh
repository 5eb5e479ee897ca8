#!/usr/bin/env bash
# Step 1 of the GitHub Action (action.yml): install sessionctl from the action's own checkout.
# An action checkout is fresh in every job, so this installs and builds; a checkout that already
# has node_modules and a build (`uses: ./` after `npm ci && npm run build`) is used as it is.
set -euo pipefail
cd "${SESSIONCTL_ACTION_PATH:-$(dirname "$0")/..}"

node -e 'const [a, b] = process.versions.node.split(".").map(Number); if (a < 20 || (a === 20 && b < 19)) { console.log(`::error title=sessionctl::Node ${process.versions.node} is too old; sessionctl needs 20.19 or newer (use actions/setup-node)`); process.exit(1); }'

bin="$(node -p 'require("./package.json").bin.sessionctl')"
if [ -d node_modules ] && [ -f "$bin" ]; then
  echo "sessionctl is already installed in $(pwd)"
  exit 0
fi
# npm ci runs the package's prepare script, which builds dist/.
npm ci --no-audit --no-fund
[ -f "$bin" ] || npm run -s build

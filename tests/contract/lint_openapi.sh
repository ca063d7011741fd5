#!/usr/bin/env bash
# Lints openapi.yaml with Redocly CLI's `recommended` ruleset (tests/contract/redocly.yaml;
# the few exemptions, each a rule and a JSON pointer with its reason, are in
# tests/contract/.redocly.lint-ignore.yaml). Any error or warning fails.
#
# The pinned CLI is installed with npm (Node.js 20.19 or later) into tests/contract/.redocly-cli/
# (git-ignored) the first time, then reused. Run from anywhere: bash tests/contract/lint_openapi.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

REDOCLY_VERSION=2.77.0
TOOL_DIR=tests/contract/.redocly-cli
REDOCLY=$TOOL_DIR/node_modules/.bin/redocly
CONFIG=tests/contract/redocly.yaml
SPEC=openapi.yaml

# no usage reports and no update checks: the lint needs no network once installed
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

if [ ! -x "$REDOCLY" ] || [ "$("$REDOCLY" --version 2>/dev/null)" != "$REDOCLY_VERSION" ]; then
  npm install --prefix "$TOOL_DIR" --no-save --no-audit --no-fund --loglevel=error "@redocly/cli@$REDOCLY_VERSION"
fi

report=$(mktemp)
errors=$(mktemp)
trap 'rm -f "$report" "$errors"' EXIT
status=0
"$REDOCLY" lint --config "$CONFIG" --format=json "$SPEC" >"$report" 2>"$errors" || status=$?

# one line per problem, then the totals; warnings fail as errors do (exit 1). Without a
# report (exit 2), what redocly wrote to stderr says why.
checked=0
node - "$report" "$status" <<'JS' || checked=$?
const fs = require("fs");
const [reportPath, status] = process.argv.slice(2);
let report;
try {
  report = JSON.parse(fs.readFileSync(reportPath, "utf8"));
} catch (err) {
  console.error(`redocly lint gave no report (exit status ${status})`);
  process.exit(2);
}
for (const p of report.problems) {
  const at = (p.location || [])[0] || {};
  const where = `${(at.source || {}).ref || "?"}:${(at.start || {}).line || "?"}:${(at.start || {}).col || "?"}`;
  console.log(`${where} ${p.severity} ${p.ruleId}: ${p.message} (${at.pointer || ""})`);
}
const t = report.totals;
console.log(`redocly ${report.version} (recommended): ${t.errors} errors, ${t.warnings} warnings, ` +
            `${t.ignored} exempted`);
process.exit(t.errors + t.warnings === 0 && status === "0" ? 0 : 1);
JS
if [ "$checked" -eq 2 ]; then
  cat "$errors" >&2
fi
exit "$checked"

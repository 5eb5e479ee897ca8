#!/usr/bin/env bash
# Step 2 of the GitHub Action (action.yml): runs sessionctl with the action's inputs (INPUT_*),
# writes annotations (stdout), the step summary, the JSON report, optional SARIF, and the step's
# outputs. Kept out of action.yml so that test/e2e/action.test.ts can run exactly this script.
set -euo pipefail

action_path="${SESSIONCTL_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"
command="${INPUT_COMMAND:-validate}"
# The package's own bin, as `npm install` would link it.
bin="$(node -p 'require(process.argv[1]).bin.sessionctl' "$action_path/package.json")"
fail_on="${INPUT_FAIL_ON:-error}"

fail() {
  echo "::error title=sessionctl action::$1"
  exit 2
}
case "$command" in
  validate | plan | apply | diff) ;;
  *) fail "input 'command' must be validate, plan, apply or diff, not '$command'" ;;
esac
case "$fail_on" in
  error | warning | never) ;;
  *) fail "input 'fail-on' must be error, warning or never, not '$fail_on'" ;;
esac

out_dir="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/sessionctl.XXXXXX")"
report="$out_dir/report.json"
summary="$out_dir/summary.md"
human="$out_dir/report.txt"

# Word lists: paths, formats and args are split on spaces and newlines; globs are left for
# sessionctl to expand (`set -f`), so they behave the same in every shell.
set -f
read -r -d '' -a paths <<<"${INPUT_PATHS:-}" || true
read -r -d '' -a formats <<<"${INPUT_FORMAT:-}" || true
read -r -d '' -a extra <<<"${INPUT_ARGS:-}" || true
read -r -d '' -a sensitive <<<"${INPUT_SENSITIVE:-}" || true
set +f
[ "${#paths[@]}" -gt 0 ] || fail "input 'paths' is required: the manifest files or folders to check, such as sessions/"

args=("$command" "${paths[@]}")
# Annotations go to stdout (the runner reads workflow commands there); every other report to a file.
args+=(--format github --format "json=$report" --format "markdown=$summary" --format "human=$human")
if [ -n "${INPUT_SARIF:-}" ]; then args+=(--format "sarif=$INPUT_SARIF"); fi
for f in ${formats[@]+"${formats[@]}"}; do args+=(--format "$f"); done
if [ "$command" != validate ] && [ -n "${INPUT_STATE:-}" ]; then args+=(--state "$INPUT_STATE"); fi
if [ "$command" = apply ] || [ "$command" = diff ]; then
  if [ -n "${INPUT_BASE_URL:-}" ]; then args+=(--base-url "$INPUT_BASE_URL"); fi
fi
if [ "$fail_on" = warning ]; then args+=(--strict); fi
if [ -n "${INPUT_CHANGED_SINCE:-}" ]; then args+=(--changed-since "$INPUT_CHANGED_SINCE"); fi
for name in ${sensitive[@]+"${sensitive[@]}"}; do args+=(--sensitive "$name"); done
args+=(${extra[@]+"${extra[@]}"})

if [ -n "${INPUT_API_KEY:-}" ]; then
  echo "::add-mask::$INPUT_API_KEY"
  export COMPOSIO_API_KEY="$INPUT_API_KEY"
fi

status=0
# `--` first: Node reads `--env-file` anywhere on its command line before sessionctl runs (nodejs/node#54232).
# Nothing is printed before it: sessionctl registers every sensitive value with ::add-mask:: first.
node -- "$action_path/$bin" "${args[@]}" || status=$?
echo "sessionctl ${args[*]}: exit $status" >&2

# The human report for the log, with workflow commands switched off so no text in it is taken
# for one.
if [ -s "$human" ]; then
  token="sessionctl-$RANDOM$RANDOM"
  echo "::stop-commands::$token"
  cat "$human"
  echo "::$token::"
fi
if [ -s "$summary" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$summary" >>"$GITHUB_STEP_SUMMARY"
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "exit-code=$status"
    if [ -f "$report" ]; then echo "report=$report"; fi
    if [ -n "${INPUT_SARIF:-}" ] && [ -f "$INPUT_SARIF" ]; then echo "sarif=$INPUT_SARIF"; fi
    if [ "$command" = apply ] && [ -f "$report" ]; then
      node "$action_path/scripts/action-outputs.mjs" "$report"
    fi
  } >>"$GITHUB_OUTPUT"
fi

# fail-on never: findings (1) and pending changes (4) do not fail the step; a run that could not
# work (2 usage or input, 3 service, 70 internal) still does.
if [ "$fail_on" = never ] && { [ "$status" = 1 ] || [ "$status" = 4 ]; }; then exit 0; fi
exit "$status"

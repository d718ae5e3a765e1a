#!/usr/bin/env bash
# Runs crdguard INPUT_COMMAND with INPUT_ARGS once, printing its text report
# to the log and writing SARIF (for code scanning) and markdown (the job
# summary, unless INPUT_SUMMARY is false) beside it with --report; crdguard
# test's summary is its text report. It sets the step's outputs exit-code
# and sarif, and exits with crdguard's code.
set -uo pipefail

fail() {
	echo "::error title=crdguard::$*" >&2
	echo "exit-code=2" >>"${GITHUB_OUTPUT:-/dev/null}"
	exit 2
}

command=${INPUT_COMMAND:-}
case $command in
validate | diff | lint) reports=(sarif markdown) ;;
test) reports=() ;;
*) fail "command must be validate, diff, lint or test, not \"$command\"" ;;
esac
read -r -d '' -a args <<<"${INPUT_ARGS:-}"
[[ ${#args[@]} -gt 0 ]] || fail "args is empty: give crdguard $command its paths and flags"

out=${RUNNER_TEMP:-$(mktemp -d)}/crdguard-$command
flags=()
for format in ${reports[@]+"${reports[@]}"}; do
	flags+=(--report "$format=$out.$format")
done

if [[ $command == test ]]; then
	crdguard test "${args[@]}" | tee "$out.text"
	code=${PIPESTATUS[0]}
	{
		echo '```'
		cat "$out.text"
		echo '```'
	} >"$out.markdown"
else
	crdguard "$command" "${args[@]}" "${flags[@]}"
	code=$?
fi

if [[ -s $out.markdown && ${INPUT_SUMMARY:-true} == true && -n ${GITHUB_STEP_SUMMARY:-} ]]; then
	cat "$out.markdown" >>"$GITHUB_STEP_SUMMARY"
fi
{
	echo "exit-code=$code"
	# Code scanning takes any report; an internal error (3) leaves none.
	if [[ -s $out.sarif ]]; then
		echo "sarif=$out.sarif"
	fi
} >>"${GITHUB_OUTPUT:-/dev/null}"
exit "$code"

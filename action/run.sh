#!/usr/bin/env bash
# Runs crdguard INPUT_COMMAND with INPUT_ARGS once, printing its text report
# to the log and writing SARIF (for code scanning) and markdown (the job
# summary, unless INPUT_SUMMARY is false) beside it with --report; crdguard
# test's summary is its text report. It sets the step's outputs exit-code,
# sarif and, when a report was cut to GitHub's limits, full-report, and
# exits with crdguard's code.
#
# GitHub takes at most 1 MiB of job summary per step, and rejects a SARIF
# run of more than 25,000 results:
# https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands#step-isolation-and-limits
# https://docs.github.com/en/code-security/code-scanning/troubleshooting-sarif-uploads/results-exceed-limit
# Past them, the summary keeps the entries that fit and the SARIF the
# first 25,000 results, errors first, each with a line counting what was
# left out; the whole reports go to the directory full-report names, which
# the action uploads as the artifact INPUT_ARTIFACT.
set -uo pipefail

summary_limit=$((1024 * 1024))
sarif_limit=25000

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
read -r -d '' -a words <<<"${INPUT_ARGS:-}"
[[ ${#words[@]} -gt 0 ]] || fail "args is empty: give crdguard $command its paths and flags"

# A word with a glob (*, ?, [) is expanded as a shell would, ** across
# directories: args is no shell. One that matches nothing is an error, not
# a run that checks less than asked. A flag's own word is left alone
# (--crds=dir/*.yaml), and so is the pattern of --exclude, which crdguard
# matches itself.
shopt -s globstar nullglob
args=()
previous=
for word in "${words[@]}"; do
	if [[ $previous != --exclude && $word != -* && $word == *[\*\?\[]* ]]; then
		# shellcheck disable=SC2206 # expanding the glob is the point
		matches=($word)
		[[ ${#matches[@]} -gt 0 ]] || fail "args: $word matches no file"
		args+=("${matches[@]}")
	else
		args+=("$word")
	fi
	previous=$word
done
shopt -u globstar nullglob

temp=${RUNNER_TEMP:-$(mktemp -d)}
full=$temp/crdguard-$command
rm -rf "$full"
mkdir -p "$full" || fail "cannot create $full"
flags=()
for format in ${reports[@]+"${reports[@]}"}; do
	flags+=(--report "$format=$full/crdguard.$format")
done

if [[ $command == test ]]; then
	crdguard test "${args[@]}" | tee "$full/crdguard.text"
	code=${PIPESTATUS[0]}
	{
		echo '```'
		cat "$full/crdguard.text"
		echo '```'
	} >"$full/crdguard.markdown"
else
	crdguard "$command" "${args[@]}" "${flags[@]}"
	code=$?
fi

artifact=${INPUT_ARTIFACT:-crdguard-$command-report}
where="the artifact \`$artifact\` of this run"
if [[ -n ${GITHUB_SERVER_URL:-} && -n ${GITHUB_REPOSITORY:-} && -n ${GITHUB_RUN_ID:-} ]]; then
	where="$where ($GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID#artifacts)"
fi
cut=false

# cap_summary MARKDOWN prints the report whole if it fits in summary_limit,
# else its heading and the whole entries that fit (an object, CRD or place
# each: a "#### " or "<details>" line starts one; a line of test's text
# report), then how many were left out.
cap_summary() {
	if [[ $(wc -c <"$1") -le $summary_limit ]]; then
		cat "$1"
		return
	fi
	cut=true
	# The budget leaves room for the note.
	LC_ALL=C awk -v budget=$((summary_limit - 4096)) -v where="$where" -v lines="$([[ $command == test ]] && echo 1)" '
		BEGIN { n = 0 }
		lines || /^(#### |<details>)/ { n++ }
		{ entry[n] = entry[n] $0 "\n" }
		END {
			used = length(entry[0])
			printf "%s", entry[0]
			for (i = 1; i <= n; i++) {
				if (used + length(entry[i]) > budget) break
				printf "%s", entry[i]
				used += length(entry[i])
			}
			left = n - i + 1
			if (lines) print "```"
			printf "\n> [!WARNING]\n> %d of %d %s left out of this summary: GitHub keeps 1 MiB of summary per step. The full report is %s.\n", left, n, lines ? "lines" : "entries", where
		}' "$1"
}

if [[ -s $full/crdguard.markdown && ${INPUT_SUMMARY:-true} == true && -n ${GITHUB_STEP_SUMMARY:-} ]]; then
	cap_summary "$full/crdguard.markdown" >>"$GITHUB_STEP_SUMMARY"
fi

# Code scanning gets the SARIF report, cut to its results limit; an
# internal error (3) leaves none.
sarif=
if [[ -s $full/crdguard.sarif ]]; then
	sarif=$temp/crdguard-$command.sarif
	if ! command -v jq >/dev/null; then
		echo "::warning title=crdguard::jq is not on the PATH: the SARIF report goes to code scanning uncut" >&2
		cp "$full/crdguard.sarif" "$sarif"
	else
		total=$(jq '[.runs[].results | length] | max // 0' "$full/crdguard.sarif")
		if [[ $total -le $sarif_limit ]]; then
			cp "$full/crdguard.sarif" "$sarif"
		else
			cut=true
			jq --argjson limit "$sarif_limit" --arg where "$where" '
				.runs |= map(
					(.results | length) as $total
					| .results |= (sort_by({"error": 0, "warning": 1, "note": 2}[.level // "warning"] // 3) | .[:$limit])
					| .invocations = [{
						executionSuccessful: true,
						toolExecutionNotifications: [{
							level: "warning",
							message: {text: "\($total - $limit) of \($total) results left out: code scanning takes \($limit) per run. The full report is \($where)."}
						}]
					}])' "$full/crdguard.sarif" >"$sarif" || fail "cutting the SARIF report to $sarif_limit results"
			echo "::warning title=crdguard::$((total - sarif_limit)) of $total results left out of the SARIF upload (code scanning takes $sarif_limit per run); the full report is $where" >&2
		fi
	fi
fi

{
	echo "exit-code=$code"
	if [[ -n $sarif ]]; then
		echo "sarif=$sarif"
	fi
	if [[ $cut == true ]]; then
		echo "full-report=$full"
	fi
} >>"${GITHUB_OUTPUT:-/dev/null}"
exit "$code"

#!/usr/bin/env bash
# Runs `termwire compat` from a base ref's code, judging another checkout's tree
# (a pull request's): the gate's code, its rules and the acknowledged breaks all
# come from the base, so a PR can neither acknowledge its own break nor edit a
# rule. action.yml calls this on pull_request events (trusted-base: true).
#
#   scripts/ci/run-trusted-gate.sh <repo-dir> <base-ref> [termwire compat options...]
#
# <repo-dir>: the PR's checkout, with history (fetch-depth: 0). <base-ref>: a
# commit there, e.g. origin/main. The base goes into its own worktree under
# $RUNNER_TEMP (else $TMPDIR), is installed with npm ci (which builds it), and
# is removed on exit. The report goes to stdout; the exit code is the gate's.
set -euo pipefail
if (($# < 2)) || [[ $2 == -* ]]; then
  echo "usage: $0 <repo-dir> <base-ref> [termwire compat options...]" >&2
  exit 2
fi
repo=$(cd "$1" && pwd -P)
base=$2
shift 2
if ! commit=$(git -C "$repo" rev-parse --verify --quiet "$base^{commit}"); then
  echo "termwire compat: the base $base is not in $repo; check it out with its history (actions/checkout with fetch-depth: 0)" >&2
  exit 2
fi
trusted=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/termwire-trusted.XXXXXX")
trap 'rm -rf "$trusted"; git -C "$repo" worktree prune' EXIT
git -C "$repo" worktree add --quiet --detach "$trusted" "$commit"
echo "termwire compat: the gate runs from $base (${commit:0:12}) in $trusted, judging $repo" >&2
(cd "$trusted" && npm ci --no-audit --no-fund) >&2
cd "$repo"
node "$trusted/bin/termwire.js" compat --acknowledgements "$trusted/compat/acknowledged-breaks.json" "$@"

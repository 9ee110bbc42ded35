#!/bin/sh
# Runs every test with the race detector, in a home folder of its own: no
# test may read or write the real ~/.devlearn, ~/.claude or ~/.gitconfig,
# and one that writes to this home at all fails the run, named.
set -eu
go=${GO:-go}
# The build cache and modules stay where they are (they are not the home's
# to lose); Go's own telemetry goes to a folder of its own.
export GOCACHE="$($go env GOCACHE)" GOMODCACHE="$($go env GOMODCACHE)" GOPATH="$($go env GOPATH)"
home=$(mktemp -d "${TMPDIR:-/tmp}/devlearn-test-home.XXXXXX")
trap 'rm -rf "$home"' EXIT
export HOME="$home/home" XDG_CONFIG_HOME="$home/config"
mkdir "$HOME" "$XDG_CONFIG_HOME"
unset DEVLEARN_HOME CLAUDE_CONFIG_DIR DEVLEARN_NOW DEVLEARN_WORKER DEVLEARN_DISABLE DEVLEARN_INTERNAL
start=$(date +%s)
status=0
# The scripts spend most of their time waiting on fsync and on child
# processes, not on the CPU: six at once halve the run on 2 cores. The
# default 10-minute deadline is the package's, and cmd/devlearn's scripts
# under the race detector come near it on a loaded machine.
$go test -race -count=1 -timeout 30m -parallel "${TEST_PARALLEL:-6}" "$@" ./... || status=$?
echo "go test took $(($(date +%s) - start)) s"
left=$(find "$HOME" -mindepth 1 | head -20)
if [ -n "$left" ]; then
	echo "tests wrote to the home folder (they must use t.TempDir or a script's own \$HOME):"
	echo "$left"
	exit 1
fi
exit $status

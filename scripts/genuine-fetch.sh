#!/usr/bin/env bash
# Fetches the genuine sessions that testdata/genuine keeps only as pointers
# (their licence does not let the repository keep them, or they hold a
# secret): each file is taken from its public repository at the commit
# corpus.tsv names, checked against its blob, and written to
# $DEVLEARN_GENUINE_DIR/<session>/<file name>, the folder `make eval` reads.
#
#   DEVLEARN_GENUINE_DIR=~/genuine scripts/genuine-fetch.sh
#
# With MIRROR_DIR set, repositories are read from the bare copies there
# (MIRROR_DIR/<owner>+<name>/repo); otherwise each is cloned, without its
# files' contents until they are asked for, from github.com.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tsv=${1:-$here/testdata/genuine/corpus.tsv}
out=${DEVLEARN_GENUINE_DIR:?set DEVLEARN_GENUINE_DIR to the folder to write the sessions to}
clones=${out}/.repos
mkdir -p "$out"

gitdir() { # the git folder holding repository $1
	local repo=$1 g
	if [[ -n "${MIRROR_DIR:-}" ]]; then
		g="$MIRROR_DIR/${repo/\//+}/repo"
		[[ -d "$g/.git" ]] && g="$g/.git"
		if [[ -d "$g" ]]; then echo "$g"; return; fi
	fi
	g="$clones/${repo/\//+}.git"
	if [[ ! -d "$g" ]]; then
		git clone -q --bare --filter=blob:none "https://github.com/$repo.git" "$g" >&2
	fi
	echo "$g"
}

n=0 failed=0
while IFS=$'\t' read -r session part repo commit path blob lic kept size rest; do
	[[ "$session" == session || "$kept" == yes ]] && continue
	dst="$out/$session/$(basename "$path")"
	if [[ -f "$dst" && $(git hash-object "$dst") == "$blob" ]]; then
		continue
	fi
	if ! g=$(gitdir "$repo"); then
		echo "genuine-fetch: $repo: cannot be read; $session is left out" >&2
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$out/$session"
	if ! git --git-dir="$g" cat-file -p "$blob" >"$dst.tmp" 2>/dev/null; then
		git --git-dir="$g" fetch -q origin "$commit" 2>/dev/null || true
		if ! git --git-dir="$g" cat-file -p "$blob" >"$dst.tmp" 2>/dev/null; then
			echo "genuine-fetch: $repo: no blob $blob ($path at $commit); $session is left out" >&2
			rm -f "$dst.tmp"
			failed=$((failed + 1))
			continue
		fi
	fi
	got=$(stat -c %s "$dst.tmp")
	if [[ "$got" != "$size" ]]; then
		echo "genuine-fetch: $repo:$path is $got bytes, corpus.tsv says $size; $session is left out" >&2
		rm -f "$dst.tmp"
		failed=$((failed + 1))
		continue
	fi
	mv "$dst.tmp" "$dst"
	n=$((n + 1))
done <"$tsv"
if [[ $failed == 0 ]]; then
	echo "genuine-fetch: wrote $n files under $out"
else
	echo "genuine-fetch: wrote $n files under $out; $failed could not be fetched"
fi
[[ $failed == 0 ]]

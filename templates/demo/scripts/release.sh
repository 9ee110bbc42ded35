#!/bin/sh
# Bumps the version everywhere it is written, then tags the release.
set -eu
version=$1
sed -i "s/\"version\": \".*\"/\"version\": \"$version\"/" package.json plugin.json
git commit -am "Release $version"
git tag "v$version"

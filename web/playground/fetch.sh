#!/bin/sh
# Refreshes vendor/: the browser builds of GraphiQL, React, ReactDOM and
# GraphiQL's explorer plugin that /playground serves from the binary, as
# their npm packages publish them, at the versions package-lock.json pins.
# Each package's LICENSE goes next to its files; vendor/VERSIONS records
# what was copied.
#
#   sh web/playground/fetch.sh           # the pinned versions (npm ci)
#   sh web/playground/fetch.sh --update  # after editing package.json: resolves
#                                        # again and rewrites package-lock.json
#
# Needs node and npm, and the npm registry (or a mirror npm is configured
# for). node_modules lives in a temporary directory, never in the tree.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

cp "$here/package.json" "$work/"
if [ "${1:-}" = --update ]; then
	(cd "$work" && npm install --ignore-scripts --no-audit --no-fund)
	cp "$work/package-lock.json" "$here/package-lock.json"
else
	cp "$here/package-lock.json" "$work/"
	(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund)
fi
nm=$work/node_modules
vendor=$here/vendor
rm -rf "$vendor"
mkdir -p "$vendor"

version() { node -p "require('$nm/$1/package.json').version"; }

# put PACKAGE DIR LICENSE FILE...: copies FILEs of PACKAGE to vendor/DIR/
# (flat), and the file LICENSE (a path inside node_modules) as DIR/LICENSE.
put() {
	pkg=$1 dir=$2 license=$3
	shift 3
	mkdir -p "$vendor/$dir"
	for f in "$@"; do
		cp "$nm/$pkg/$f" "$vendor/$dir/"
	done
	cp "$nm/$license" "$vendor/$dir/LICENSE"
	echo "$pkg $(version "$pkg") $(node -p "require('$nm/$pkg/package.json').license") $dir/" >>"$vendor/VERSIONS"
}

echo "# package version licence folder (written by fetch.sh; versions pinned by package-lock.json)" >"$vendor/VERSIONS"
put react react react/LICENSE umd/react.production.min.js
put react-dom react-dom react-dom/LICENSE umd/react-dom.production.min.js
put graphiql graphiql graphiql/LICENSE graphiql.min.js graphiql.min.css
# The plugin's package ships no LICENSE file; it is MIT (package.json) and
# comes from GraphiQL's repository, whose LICENSE graphiql's package carries.
# Its build bundles graphiql-explorer (MIT, OneGraph), whose licence goes
# next to it.
put @graphiql/plugin-explorer plugin-explorer graphiql/LICENSE dist/index.umd.js dist/style.css
explorer=$(cd "$nm/@graphiql/plugin-explorer" && node -p "require.resolve('graphiql-explorer/package.json')")
cp "$(dirname "$explorer")/LICENSE" "$vendor/plugin-explorer/LICENSE-graphiql-explorer"

# graphiql.min.js bundles graphql (the explorer takes it from there as
# GraphiQL.GraphQL): the version package.json pins must be the bundled one,
# so that the lockfile records what is served.
graphql=$(version graphql)
bundled=$(grep -o 'version:"1[0-9]\.[0-9]*\.[0-9]*"' "$vendor/graphiql/graphiql.min.js" | head -n 1 | cut -d'"' -f2)
if [ "$bundled" != "$graphql" ]; then
	echo "fetch.sh: graphiql.min.js bundles graphql $bundled, package.json pins $graphql: pin graphql $bundled" >&2
	exit 1
fi
echo "graphql $graphql MIT graphiql/ (bundled in graphiql.min.js)" >>"$vendor/VERSIONS"
# It bundles graphql-ws too, an optional peer of @graphiql/toolkit that npm
# does not install unless asked: package.json names the 5.16 line the bundle
# holds (it has shouldRetry, new in 5.16), for its licence.
grep -q 'shouldRetry' "$vendor/graphiql/graphiql.min.js" || {
	echo "fetch.sh: graphiql.min.js no longer bundles graphql-ws 5.16+: check the graphql-ws pin in package.json" >&2
	exit 1
}
echo "graphql-ws $(version graphql-ws) MIT graphiql/ (bundled in graphiql.min.js; licence in THIRD-PARTY-LICENSES)" >>"$vendor/VERSIONS"

# The licences of everything else graphiql.min.js bundles: the packages of
# its dependency tree as npm resolves it (react and react-dom, loaded on
# their own, aside), one copy of each distinct licence text.
(cd "$work" && npm query '#graphiql *') | node "$here/third-party.mjs" graphiql react react-dom >"$vendor/graphiql/THIRD-PARTY-LICENSES"

echo "vendor/ refreshed:"
cat "$vendor/VERSIONS"
du -sh "$vendor"

#!/bin/sh
# make api-docs: the engine's API reference (issue 19) — one static DocC site in .build/docs, built offline.
#
#   scripts/api-docs.sh      (SWIFT and DOCC name other tools; docc defaults to the one beside swift)
#
# 1. `swift package dump-symbol-graph` builds the package (the debug build of `make build`, reused) and writes
#    every module's public symbols to .build/<triple>/symbolgraph/.
# 2. `docc convert` per library module, in tier order, over its catalog (Modules/<M>/<M>.docc/<M>.md: what
#    the module owns, its seams, its seed rules, its tests) and its symbol graphs. Each archive is a
#    --dependency of the later ones, so a doc comment links another module's symbol as ``/JQCStorage/OutboxTable``.
# 3. `docc merge` combines the archives into one site whose landing page lists the modules; the script then
#    checks the site has a page per module.
#
# Every docc warning (an unresolved ``link``, an undocumented parameter, …) is printed again at the end and
# fails the run, after the site is written. Work files and per-module logs: .build/api-docs. The site loads
# its pages' JSON, so it needs a static file server (file:// does not work), e.g.
# `busybox httpd -f -p 8080 -h .build/docs`, then http://127.0.0.1:8080/documentation/.
set -eu

cd "$(dirname "$0")/.."
for argument in "$@"; do
    case "$argument" in
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "api-docs: unknown argument '$argument' (try --help)" >&2; exit 2 ;;
    esac
done

SWIFT=${SWIFT:-swift}
if ! command -v "$SWIFT" >/dev/null 2>&1; then
    echo "api-docs: '$SWIFT' is not on PATH: install Swift 6.x (swift.org/install) and add its usr/bin to PATH." >&2
    exit 1
fi
# docc ships beside the compiler in swift.org toolchains.
DOCC=${DOCC:-$(dirname "$(readlink -f "$(command -v "$SWIFT")")")/docc}
if [ ! -x "$DOCC" ]; then
    echo "api-docs: no docc at $DOCC: use a swift.org toolchain (it ships usr/bin/docc) or set DOCC." >&2
    exit 1
fi
if ! command -v jq >/dev/null 2>&1; then
    echo "api-docs: jq is missing (it reads jqc-lint.json, counts symbols): run make deps, or sudo apt-get install jq." >&2
    exit 1
fi

# The library modules in tier order, from the policy jqc-lint enforces (tiers 0–4: foundation … composition),
# then the dev server; each module may link the ones before it. A new module is documented once it is there.
MODULES=$(jq -r '[.tiers[] | select(.tier != null and .tier <= 4) | .modules[]] + ["JQCDevServer"] | join(" ")' \
    jqc-lint.json)

WORK=.build/api-docs
SITE=.build/docs
START=$(date +%s)
rm -rf "$WORK" "$SITE" .build/*/symbolgraph
mkdir -p "$WORK/graphs" "$WORK/archives" "$WORK/logs"

echo "api-docs: building and extracting symbol graphs (swift package dump-symbol-graph)" >&2
# It exits 1 when one module's graph fails, and JQCLint's always does: swift-symbolgraph-extract is not given the
# -I of its toolchain SwiftSyntax modules. JQCLint is not documented here, so only a failure of a module in
# MODULES (or of the build) counts.
DUMP_LOG="$WORK/logs/dump-symbol-graph.log"
if ! "$SWIFT" package -j "$(nproc 2>/dev/null || echo 2)" dump-symbol-graph --skip-synthesized-members \
    --emit-extension-block-symbols >"$DUMP_LOG" 2>&1; then
    failed=$(sed -n "s/^error: Failed to emit symbol graph for '\([^']*\)'.*/\1/p" "$DUMP_LOG")
    fatal=""
    [ -n "$failed" ] || fatal="the build"
    for module in $failed; do
        case " $(echo $MODULES) " in *" $module "*) fatal="$fatal $module" ;; esac
    done
    grep -q "^Files written to " "$DUMP_LOG" || fatal="$fatal (no graphs written)"
    if [ -n "$fatal" ]; then
        cat "$DUMP_LOG" >&2
        echo "api-docs: swift package dump-symbol-graph failed (above) for:$fatal." >&2
        exit 1
    fi
fi
GRAPHS_DONE=$(date +%s)
GRAPHS=$(sed -n 's/^Files written to //p' "$DUMP_LOG" | tail -n 1)
if [ -z "$GRAPHS" ] || [ ! -d "$GRAPHS" ]; then
    echo "api-docs: dump-symbol-graph did not say where it wrote the graphs; see $DUMP_LOG" >&2
    exit 1
fi

SYMBOLS=0
DOCUMENTED=0
WARNINGS=0
DEPENDENCIES=""
ARCHIVES=""
NO_CATALOG=""
for module in $MODULES; do
    graphs="$WORK/graphs/$module"
    mkdir -p "$graphs"
    # The module's own graph and its extensions of other modules' types (JQCInspections@JQCPhotos).
    if [ ! -f "$GRAPHS/$module.symbols.json" ]; then
        echo "api-docs: no symbol graph for $module in $GRAPHS; see $DUMP_LOG" >&2
        exit 1
    fi
    cp "$GRAPHS/$module.symbols.json" "$graphs/"
    for extension in "$GRAPHS/$module"@*.symbols.json; do
        if [ -f "$extension" ]; then cp "$extension" "$graphs/"; fi
    done
    # Symbols: every declaration in the graphs but extension blocks (the containers of extension members);
    # documented: those whose doc comment is written on them (the rest show the comment of the protocol
    # requirement or standard-library member they implement, or none).
    counts=$(jq -s -r '[.[].symbols[] | select(.kind.identifier != "swift.extension")]
        | "\(length) \(map(select(.docComment.uri != null and .docComment.uri == .location.uri)) | length)"' \
        "$graphs"/*.symbols.json)
    SYMBOLS=$((SYMBOLS + ${counts% *}))
    DOCUMENTED=$((DOCUMENTED + ${counts#* }))

    catalog=""
    for place in Modules Tooling; do
        if [ -f "$place/$module/$module.docc/$module.md" ]; then catalog="$place/$module/$module.docc"; fi
    done
    archive="$WORK/archives/$module.doccarchive"
    log="$WORK/logs/$module.log"
    # shellcheck disable=SC2086 # $catalog and $DEPENDENCIES are lists of words on purpose
    "$DOCC" convert $catalog --additional-symbol-graph-dir "$graphs" --output-path "$archive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --fallback-default-module-kind Module --enable-experimental-external-link-support \
        --transform-for-static-hosting $DEPENDENCIES >"$log" 2>&1 || {
        cat "$log" >&2
        echo "api-docs: docc convert failed for $module (above)." >&2
        exit 1
    }
    found=$(grep -c -e "^warning:" -e "^error:" "$log" || true)
    if [ -z "$catalog" ]; then NO_CATALOG="$NO_CATALOG $module"; fi
    WARNINGS=$((WARNINGS + found))
    echo "api-docs: $module — ${counts% *} symbols, $found docc warnings${catalog:+, catalog $catalog}" >&2
    DEPENDENCIES="$DEPENDENCIES --dependency $archive"
    ARCHIVES="$ARCHIVES $archive"
done

# shellcheck disable=SC2086
"$DOCC" merge $ARCHIVES --output-path "$SITE" --synthesized-landing-page-name "JanitorialQC engine" \
    --synthesized-landing-page-kind Package >"$WORK/logs/merge.log" 2>&1 || {
    cat "$WORK/logs/merge.log" >&2
    echo "api-docs: docc merge failed (above)." >&2
    exit 1
}

# The smoke test: the landing page, and each module's page with its data.
MISSING=""
if [ ! -f "$SITE/index.html" ] || [ ! -f "$SITE/documentation/index.html" ]; then MISSING=" (the landing page)"; fi
for module in $MODULES; do
    lower=$(printf '%s' "$module" | tr '[:upper:]' '[:lower:]')
    if [ ! -f "$SITE/documentation/$lower/index.html" ] || [ ! -f "$SITE/data/documentation/$lower.json" ]; then
        MISSING="$MISSING $module"
    fi
done

DONE=$(date +%s)
echo "api-docs: $SITE — $(echo $MODULES | wc -w) modules, $SYMBOLS symbols ($DOCUMENTED with their own doc comment)," \
    "$((DONE - START)) s (build and symbol graphs $((GRAPHS_DONE - START)) s, docc $((DONE - GRAPHS_DONE)) s)" >&2
if [ "$WARNINGS" -gt 0 ]; then
    for module in $MODULES; do
        grep -A 4 -e "^warning:" -e "^error:" "$WORK/logs/$module.log" | sed "s|^|$module: |" >&2 || true
    done
    echo "api-docs: $WARNINGS docc warnings (above; each module's log is in $WORK/logs)." >&2
    exit 1
fi
if [ -n "$MISSING" ]; then
    echo "api-docs: the site lacks a page for:$MISSING" >&2
    exit 1
fi
if [ -n "$NO_CATALOG" ]; then
    echo "api-docs: no catalog page (Modules/<M>/<M>.docc/<M>.md) for:$NO_CATALOG" >&2
    exit 1
fi

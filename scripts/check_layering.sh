#!/usr/bin/env bash
# Checks #include lines against the module table of ARCHITECTURE.md: a module may include
# only the modules it is allowed to depend on. Also checks that this script's folders are the
# table's (one row per library folder). Prints each violation; exits 1 if any.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
declare -A allowed=(
  [core]="core"
  [topology]="core topology"
  [algorithms/schedule]="core algorithms/schedule"
  [algorithms]="core topology algorithms"
  [simulator]="core topology algorithms/schedule simulator"
  [measurement]="core algorithms/schedule measurement"
  [runtime]="core algorithms/schedule measurement runtime"
  [timing]="core topology algorithms simulator timing"
  [calibration]="core topology algorithms simulator timing measurement calibration"
  [planning]="core topology algorithms simulator timing planning"
  [emulation]="core topology emulation"
  [cli]="core topology algorithms simulator timing calibration planning measurement runtime emulation cli"
  [tuner_plugin]="tuner_plugin"
)
modules="core topology algorithms/schedule algorithms simulator measurement runtime timing calibration planning emulation cli tuner_plugin"
status=0
# The folders above are ARCHITECTURE.md's: its module table has one row per folder that builds a
# library (first cell the folder, second the library; rows whose library is "—" hold none).
documented=$(awk -F'|' '/^\| `[^`]+\/` \| `/ { gsub(/[ `]/, "", $2); sub(/\/$/, "", $2); print $2 }' \
  ARCHITECTURE.md | sort)
listed=$(echo $modules | tr ' ' '\n' | sort)
if [ "$documented" != "$listed" ]; then
  echo "layering: ARCHITECTURE.md's module table and this script's list disagree:"
  comm -23 <(echo "$documented") <(echo "$listed") | sed 's/^/  only in ARCHITECTURE.md: /'
  comm -13 <(echo "$documented") <(echo "$listed") | sed 's/^/  only in this script: /'
  status=1
fi
if [ "$(printf '%s\n' "${!allowed[@]}" | sort)" != "$listed" ]; then
  echo "layering: this script's allowed table and its module list name different folders"
  status=1
fi
for module in $modules; do
  if [ ! -d "$module" ]; then
    echo "layering: $module/ is in the module table but is not a folder"
    status=1
    continue
  fi
  files=$(find "$module" -type f \( -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' \))
  if [ "$module" = algorithms ]; then
    files=$(echo "$files" | grep -v '^algorithms/schedule/' || true)
  fi
  for f in $files; do
    while IFS= read -r inc; do
      target=${inc#\"}; target=${target%%\"*}
      dir=$(dirname "$target")
      ok=0
      for a in ${allowed[$module]}; do
        case "$dir" in "$a"|"$a"/*) ok=1 ;; esac
      done
      # algorithms/ may include algorithms/schedule (covered by the prefix rule above).
      if [ $ok -eq 0 ]; then
        echo "layering: $f includes \"$target\" ($module may use: ${allowed[$module]})"
        status=1
      fi
    done < <(grep -oE '^#include "[^"]+"' "$f" | sed 's/#include //')
  done
done
# Boost.Graph is used in topology/ and nowhere else.
if grep -rlE '#include <boost/graph' --include='*.h' --include='*.cc' . 2>/dev/null \
    | grep -vE '^\./(topology|build[^/]*)/' ; then
  echo "layering: Boost.Graph included outside topology/"
  status=1
fi
# The NCCL tuner plugin is loaded into other programs: std, libc and its own ABI headers only
# (no NCCL, no third-party library), so it builds and loads anywhere NCCL runs.
if grep -rnE '^#include <(nccl|cuda|boost|nlohmann|CLI|gtest|benchmark)' tuner_plugin/ 2>/dev/null; then
  echo "layering: tuner_plugin/ includes a non-std header"
  status=1
fi
[ $status -eq 0 ] && echo "layering: ok"
exit $status

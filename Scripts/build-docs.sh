#!/usr/bin/env bash
# Builds the DocC documentation of the app-facing modules with swift-docc-plugin and fails on
# any warning (an unresolved symbol link, a missing Topics entry, a bad code listing reference).
#   bash Scripts/build-docs.sh [MODULE ...]     (default: every app-facing module)
# Output: .build/docs/<Module>.doccarchive
set -euo pipefail
cd "$(dirname "$0")/.."
MODULES=("$@")
if ((${#MODULES[@]} == 0)); then
  MODULES=(LinkRouting URLRelay CallbackURL AssociatedDomains PatternMatching UserAgents LinkRules DeferredLinking)
fi
mkdir -p .build/docs
status=0
for module in "${MODULES[@]}"; do
  log=".build/docs/$module.log"
  if ! swift package --allow-writing-to-directory .build/docs generate-documentation \
      --target "$module" --output-path ".build/docs/$module.doccarchive" --warnings-as-errors >"$log" 2>&1; then
    echo "docs: $module FAILED" >&2
    grep -E "warning:|error:" "$log" >&2 || tail -n 20 "$log" >&2
    status=1
    continue
  fi
  # docc prints warnings even when it does not fail on them in some versions: count them too.
  warnings=$(grep -c "warning:" "$log" || true)
  if ((warnings > 0)); then
    echo "docs: $module has $warnings warning(s)" >&2
    grep "warning:" "$log" >&2
    status=1
  else
    echo "docs: $module ok (.build/docs/$module.doccarchive)"
  fi
done
exit $status

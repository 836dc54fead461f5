#!/usr/bin/env bash
# The code's layout against .swift-format (indentation 4, lines up to 130 columns), with the
# toolchain's swift-format. Fails on any finding and says how to fix it.
set -uo pipefail
cd "$(dirname "$0")/.."

paths=(Sources Tests Benchmarks Tools Package.swift)
if ! swift format --version >/dev/null 2>&1; then
  echo "ci: swift format is not in this toolchain (Swift 6 ships it): cannot check the layout"; exit 1
fi
findings="$(mktemp)"
trap 'rm -f "$findings"' EXIT
if swift format lint --strict --parallel --configuration .swift-format -r "${paths[@]}" 2>"$findings"; then
  echo "ci: swift format: no findings"
  exit 0
fi
cat "$findings"
echo
echo "ci: swift format lint: $(grep -c ': \(warning\|error\): ' "$findings") findings in $(cut -d: -f1 "$findings" | sort -u | wc -l) files, by rule:"
grep -o ': \(warning\|error\): \[[A-Za-z]*\]' "$findings" | grep -o '\[.*\]' | sort | uniq -c | sort -rn
echo "ci: fix the layout with: swift format -i -r ${paths[*]}"
echo "ci: (then build: the formatter only moves code, but check the diff before committing)"
exit 1

#!/usr/bin/env bash
# clang-format over every C++ and CUDA file of the project (.clang-format at the top).
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  change nothing; list the files that differ and exit 1 if any
# CLANG_FORMAT picks the binary (default clang-format, Debian 12's is 14); the check's ctest is
# format.clang_format. Files: *.cc, *.h, *.cu under the source folders (build*/, out/, .git excluded).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CF=${CLANG_FORMAT:-clang-format}
case "${1:-}" in
  "") mode=fix ;;
  --check) mode=check ;;
  -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "format.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac
command -v "$CF" > /dev/null || { echo "format.sh: '$CF' not found (apt-get install clang-format)" >&2; exit 2; }
cd "$ROOT"
# Every source folder (a new one is covered without a change here); build outputs and .git are not.
mapfile -d '' files < <(find . \( -path ./.git -o -path './build*' -o -path ./out \) -prune -o \
  \( -name '*.cc' -o -name '*.h' -o -name '*.cu' \) -type f -print0 | sort -z)
if [ "$mode" = fix ]; then
  "$CF" -i --style=file "${files[@]}"
  echo "format.sh: formatted ${#files[@]} files"
  exit 0
fi
# One run over all files; each difference is reported as "FILE:LINE:COL: error: ...". It exits
# non-zero when a file differs; when it does with no such line, it failed (a crash, an old
# clang-format without --dry-run), and that must not pass as "formatted".
cf_status=0
report=$("$CF" --style=file --dry-run --Werror "${files[@]}" 2>&1) || cf_status=$?
mapfile -t drift < <(printf '%s\n' "$report" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [ ${#drift[@]} -eq 0 ] && [ "$cf_status" != 0 ]; then
  echo "format.sh: $CF failed (exit $cf_status): $(printf '%s\n' "$report" | head -n 5)" >&2
  exit 2
fi
if [ ${#drift[@]} -gt 0 ]; then
  printf 'format.sh: not clang-formatted: %s\n' "${drift[@]}"
  echo "format.sh: ${#drift[@]} of ${#files[@]} files differ; run scripts/format.sh to fix them"
  exit 1
fi
echo "format.sh: ${#files[@]} files clang-formatted"

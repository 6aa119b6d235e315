# Sourced by the scripts that run an outside suite against blitty (esctest.sh,
# libvterm-tests.sh): the suite's failures compared with the list of expected ones.
#
# expected_failures FILE: the names FILE lists (comments and blank lines left out), sorted.
expected_failures() {
  { grep -v -e '^#' -e '^$' "$1" || true; } | sort
}

# compare_failures NAME LIST LOG FAILED EXPECTED: prints the failures not in LIST (a file of
# expected failures, named in the messages) and the listed ones that passed, each a sorted
# newline-separated list; returns 1 if there is either, 0 when every failure is an expected one.
compare_failures() {
  local name=$1 list=$2 log=$3 failed=$4 expected=$5 new fixed status=0
  new=$(comm -23 <(echo "$failed") <(echo "$expected") | grep -v '^$' || true)
  fixed=$(comm -13 <(echo "$failed") <(echo "$expected") | grep -v '^$' || true)
  if [ -n "$new" ]; then
    echo "$name: failing, and not in $list (details in $log):"
    echo "$new" | sed 's/^/  /'
    status=1
  fi
  if [ -n "$fixed" ]; then
    echo "$name: listed in $list, but passing now (remove them):"
    echo "$fixed" | sed 's/^/  /'
    status=1
  fi
  [ "$status" = 0 ] && echo "$name: every failure is an expected one"
  return "$status"
}

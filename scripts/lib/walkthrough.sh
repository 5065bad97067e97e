# The vocabulary of a walkthrough (scripts/walkthroughs/NN.sh): steps a learner could
# type themselves, each followed by what they should see. Every check prints the kubectl
# command that shows it, a pass or fail line, and on failure a hint.
#
#   step "What happens next"
#   run kubectl apply -f ...                          show and run a command
#   expect "what should be true" WANT 'COMMAND' "hint when it is not"
#   expect_refused "what should be refused" 'COMMAND' "text of the error" "hint"
#
# expect polls COMMAND (a shell string) for up to WAIT seconds (30) until its output is
# WANT. The walkthrough ends with "N passed, M failed". Commands show paths relative to
# the top of the checkout, where make runs them, so that they can be pasted from there.
# When WALKTHROUGH_LOG names a file, what the commands printed and every failure are
# appended to it too, for scripts/lib/symptoms.sh to recognise known problems in.

PASSED=0
FAILED=0
WAIT=${WAIT:-30}

step() { printf '\n\033[1m%s\033[0m\n' "$*"; }

# show prints a command as the learner would type it at the top of the checkout.
show() { printf '  $ %s\n' "${1//"$ROOT/"/}"; }

run() {
  local word shown=()
  for word in "$@"; do
    # Quote only the words that need it, so the line can be pasted into a shell.
    if [[ $word =~ ^[][A-Za-z0-9_./:=,@%+-]+$ ]]; then shown+=("$word"); else shown+=("'$word'"); fi
  done
  show "${shown[*]}"
  "$@" 2>&1 | tee -a "${WALKTHROUGH_LOG:-/dev/null}" | sed 's/^/    /'
}

pass() { PASSED=$((PASSED + 1)); printf '  \033[32mPASS\033[0m %s\n' "$1"; }

fail() {
  FAILED=$((FAILED + 1))
  printf '  \033[31mFAIL\033[0m %s\n' "$1"
  [[ -z ${WALKTHROUGH_LOG:-} ]] || printf 'FAIL %s: %s\n' "$1" "${2:-}" >>"$WALKTHROUGH_LOG"
  [[ -n ${2:-} ]] && printf '       %s\n' "$2"
  [[ -n ${3:-} ]] && printf '       hint: %s\n' "$3"
  return 0
}

expect() {
  local what=$1 want=$2 cmd=$3 hint=${4:-} got deadline
  deadline=$(($(date +%s) + WAIT))
  show "$cmd"
  while :; do
    got=$(eval "$cmd" 2>&1 || true)
    if [[ $got == "$want" ]]; then
      pass "$what"
      return
    fi
    (($(date +%s) < deadline)) || break
    sleep 0.5
  done
  fail "$what" "got '$got', want '$want' (waited ${WAIT}s)" "$hint"
}

expect_refused() {
  local what=$1 cmd=$2 message=$3 hint=${4:-} out
  show "$cmd"
  if out=$(eval "$cmd" 2>&1); then
    fail "$what" "the command succeeded: $out" "$hint"
  elif [[ $out == *"$message"* ]]; then
    printf '    %s\n' "$out"
    pass "$what"
  else
    fail "$what" "refused, but with '$out'; want it to mention '$message'" "$hint"
  fi
}

# fresh_namespace NAME deletes NAME if an earlier walkthrough left it, and creates it.
fresh_namespace() {
  kubectl delete namespace "$1" --ignore-not-found --wait=true --timeout=60s >/dev/null
  run kubectl create namespace "$1"
}

summary() {
  printf '\n%d passed, %d failed\n' "$PASSED" "$FAILED"
  ((FAILED == 0))
}

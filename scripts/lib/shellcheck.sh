# shellcheck shell=bash
# ShellCheck over the workshop's shell, for make verify. Source after common.sh.

# run_shellcheck runs ShellCheck on every *.sh git tracks under ROOT and on .ci/run,
# with the settings of ROOT/.shellcheckrc, and fails when it finds anything. ShellCheck is
# no stock tool: without it, it fails with how to install it.
run_shellcheck() {
  command -v shellcheck >/dev/null || die "make verify needs shellcheck, which is not installed:
  Debian, Ubuntu or WSL: sudo apt-get install shellcheck
  macOS:                 brew install shellcheck"
  local scripts=() script
  while IFS= read -r script; do scripts+=("$script"); done < <(cd "$ROOT" && git ls-files '*.sh')
  (cd "$ROOT" && shellcheck ${scripts[@]+"${scripts[@]}"} .ci/run) ||
    die "shellcheck finds problems in the scripts (above): fix them, or disable the check on that line with the reason (# shellcheck disable=SCnnnn # why)"
}

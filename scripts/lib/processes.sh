# shellcheck shell=bash
# Finds the processes a script started that outlived it. Source after common.sh.
#
# mark_processes NAME exports a marker into the environment (WORKSHOP_PROCESSES_NAME, so
# that a script run by another keeps its caller's marker too), which every process the
# script starts from then on inherits, whatever process group it makes for itself (envtest
# puts etcd and kube-apiserver in groups of their own, out of reach of a kill of the
# script's group); survivors prints those still running. Linux only (/proc): elsewhere
# survivors prints nothing.

# mark_processes NAME marks what this script starts from now on as NAME's.
PROCESS_MARK=
mark_processes() {
  # Unique enough: this script's pid, the second and a random number (BSD date has no
  # %N for nanoseconds).
  PROCESS_MARK="WORKSHOP_PROCESSES_$1=$$-$(date +%s)-$RANDOM"
  export "${PROCESS_MARK?}"
}

# survivors prints, one per line, "PID COMMAND" of every process that carries this
# script's marker, except this script and its ancestors.
survivors() {
  [[ -n $PROCESS_MARK && -d /proc/self ]] || return 0
  # This shell and its ancestors, as " PID PID ... " (bash 3.2 has no associative
  # arrays). This shell is a subshell, $(survivors), whose pid is not $$, and bash 3.2
  # has no variable for a subshell's own pid: it is the parent of a command it runs.
  local mine=" " pid
  pid=$(sh -c 'echo "$PPID"')
  while [[ -n $pid && $pid != 0 ]]; do
    mine+="$pid "
    pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null) || break
  done
  local environ
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    [[ $mine != *" $pid "* ]] || continue
    # A zombie has no environment left; a process of another user cannot be read.
    { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -qxF "$PROCESS_MARK" || continue
    printf '%s %s\n' "$pid" "$({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | cut -c1-120)"
  done
}

# stop_survivors kills the processes survivors prints, and prints them.
stop_survivors() {
  local list
  list=$(survivors)
  [[ -n $list ]] || return 0
  echo "$list"
  # shellcheck disable=SC2046 # one pid a word
  kill -KILL $(cut -d' ' -f1 <<<"$list") 2>/dev/null || true
}

# no_survivors WHAT fails, naming them, when processes WHAT started still run; it
# stops them first, so that a failed run does not hold the machine's memory.
no_survivors() {
  local list
  list=$(stop_survivors)
  [[ -z $list ]] || die "$1 left processes running (stopped now):"$'\n'"$list"
}

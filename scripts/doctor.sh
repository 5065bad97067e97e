#!/usr/bin/env bash
# Checks that this machine is ready for the workshop and prints one line per check:
# ok, note (something still to do, nothing broken), warn or problem, each but ok
# followed by the command to run or the fix. Needs nothing built, so it is the first thing
# to run on a new machine and the thing to run when `make lesson-N` fails oddly.
#
# Exit status: 1 when a problem blocks the learner (Go too old, too little disk, a port
# the manager needs is taken, a built binary of the wrong version), else 0. Binaries not
# built yet are a note, not a problem: every target that needs them depends on
# `make binaries`, which builds them on the way.
#
# Usage: scripts/doctor.sh
source "$(dirname "$0")/lib/common.sh"

if [[ -t 1 ]]; then c_ok=$'\033[32m' c_note=$'\033[36m' c_warn=$'\033[33m' c_bad=$'\033[31m' c_off=$'\033[0m'; fi
problems=0
line() { printf '%s%-8s%s %s\n' "$1" "$2" "${c_off:-}" "$3"; }
ok() { line "${c_ok:-}" ok "$*"; }
note() { line "${c_note:-}" note "$*"; }
warnline() { line "${c_warn:-}" warn "$*"; }
problem() { line "${c_bad:-}" problem "$*"; problems=$((problems + 1)); }
fix() { printf '%-8s   fix: %s\n' '' "$*"; }
run() { printf '%-8s   run: %s\n' '' "$*"; }

# version_key turns a Go version (1.26.0, go1.26.3, go1.27rc1, devel go1.27-abc) into a
# number that sorts the way Go orders releases: 1.27beta1 < 1.27rc1 < 1.27.0 < 1.27.1.
version_key() {
  local v=${1#devel } stage=9 n=0
  v=${v#go}
  [[ $v =~ ^([0-9]+)\.([0-9]+)(\.([0-9]+)|rc([0-9]+)|beta([0-9]+))?(.*)$ ]] || { echo 0; return; }
  if [[ -n ${BASH_REMATCH[4]} ]]; then n=${BASH_REMATCH[4]}
  elif [[ -n ${BASH_REMATCH[5]} ]]; then stage=5 n=${BASH_REMATCH[5]}
  elif [[ -n ${BASH_REMATCH[6]} ]]; then stage=3 n=${BASH_REMATCH[6]}
  elif [[ -n ${BASH_REMATCH[7]} ]]; then stage=1; fi # a devel build of that release
  echo $((BASH_REMATCH[1] * 100000000 + BASH_REMATCH[2] * 100000 + stage * 1000 + n))
}

# Go: the version the repository's commands really run. go.work's `go` line can make an
# older go fetch and run a newer toolchain (GOTOOLCHAIN=auto), so `go env` runs in $ROOT;
# when that fetch fails (offline), the go on PATH is what will run.
if ! command -v go >/dev/null; then
  problem "no go on PATH"
  fix "install Go $GO_VERSION or newer from https://go.dev/dl/"
else
  have=$(cd "$ROOT" && go env GOVERSION 2>/dev/null || GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || echo unknown)
  if (($(version_key "$have") >= $(version_key "$GO_VERSION"))); then
    ok "Go $have (the workshop needs $GO_VERSION or newer)"
  else
    problem "Go $have is older than $GO_VERSION (scripts/versions.env)"
    if [[ $(go env GOTOOLCHAIN 2>/dev/null) == local* ]]; then
      fix "GOTOOLCHAIN=local keeps Go from fetching go$GO_VERSION: ${GOTOOLCHAIN:+unset GOTOOLCHAIN; }go env -w GOTOOLCHAIN=auto (or install Go $GO_VERSION from https://go.dev/dl/)"
    else
      fix "install Go $GO_VERSION or newer from https://go.dev/dl/ (Go 1.21 or newer can fetch it: go env -w GOTOOLCHAIN=go$GO_VERSION+auto)"
    fi
  fi
fi

# Disk. A full build leaves about 1 GiB of Go modules, 0.6 GiB of binaries per pin folder
# and a few GiB of Go build cache (which `make test` grows to about 10 GiB). Measuring
# those caches with du takes seconds or minutes on a cold disk and says little about what
# is still to come, so this asks for free space instead: 5 GiB before the first build,
# 2 GiB after it for the managers and tests each lesson builds. Every filesystem the
# caches live on counts, not only the repository's.
need=5
[[ -x $BIN/kubectl && $(readlink "$CACHE/bin/current" 2>/dev/null) == "$(basename "$BIN")" ]] && need=2
dirs=("$ROOT")
command -v go >/dev/null && dirs+=("$(go env GOCACHE)" "$(go env GOMODCACHE)")
declare -A seen
for d in "${dirs[@]}"; do
  while [[ ! -e $d ]]; do d=$(dirname "$d"); done # a cache not made yet lands on its parent's disk
  read -r free mount < <(df -Pk "$d" | awk 'NR == 2 {print $4, $6}')
  [[ -n ${seen[$mount]:-} ]] && continue
  seen[$mount]=1
  gib=$((free / 1024 / 1024))
  if ((gib >= need)); then ok "$gib GiB free on $mount (holds $d; want $need GiB)"
  else problem "only $gib GiB free on $mount (holds $d); the workshop wants $need GiB"
    fix "free space there (go clean -cache empties the Go build cache; old folders in .cache/bin can go)"; fi
done

# Binaries: .cache/bin/current must be the folder the current pins name ($BIN).
build_hint="make binaries (about 17 minutes on a fresh 2-core machine, about a minute with a warm Go cache)"
current=$(readlink "$CACHE/bin/current" 2>/dev/null || true)
if [[ -z $current ]]; then
  note "no binaries built yet (.cache/bin/current); make lesson-N builds them first, or now:"; run "$build_hint"
elif [[ $current != "$(basename "$BIN")" ]]; then
  note ".cache/bin/current is $current, built for other pins; this checkout wants $(basename "$BIN")"; run "$build_hint"
else
  ok ".cache/bin/current is $current, the folder the current pins name"
  for name in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok kwokctl controller-gen kustomize kind goimports; do
    case $name in
      etcd) args=(--version) want=${ETCD_VERSION#v} ;;
      kube-*) args=(--version) want=$KUBERNETES_VERSION ;;
      kubectl) args=(version --client) want=$KUBERNETES_VERSION ;;
      kwok*) args=(--version) want=$KWOK_VERSION ;;
      controller-gen) args=(--version) want=$CONTROLLER_TOOLS_VERSION ;;
      kustomize) args=(version) want=$KUSTOMIZE_VERSION ;;
      kind) args=(version) want=$KIND_VERSION ;;
      goimports) args=() want= ;; # goimports has no version flag
    esac
    if [[ ! -x $BIN/$name ]]; then
      note "$name is not built yet"; run "$build_hint"
    elif [[ -z $want ]]; then
      ok "$name"
    elif [[ $(timeout 10 "$BIN/$name" "${args[@]}" 2>&1) == *"$want"* ]]; then
      ok "$name $want"
    else
      # build-binaries.sh skips a binary that exists, so only removing the folder helps.
      problem "$name does not report $want, the version scripts/versions.env pins"
      fix "rm -r .cache/bin/$current && $build_hint"
    fi
  done
fi

# The embedded cluster: down is normal, make lesson-N starts it when it needs it.
if timeout 15 "$ROOT/scripts/cluster.sh" running 2>/dev/null; then
  ok "the embedded cluster kwok-${WORKSHOP_CLUSTER:-workshop} is up (make cluster-down stops it)"
else
  note "the embedded cluster is not up; make lesson-N starts it, or now: make cluster-up"
fi

# Ports: the ones make lesson-N gives the manager (the defaults of scripts/run-stage.sh).
for var in METRICS_PORT=18080 PROBE_PORT=18081 WEBHOOK_PORT=19443; do
  name=${var%%=*} port=${!name:-${var#*=}}
  if command -v ss >/dev/null; then
    holder=$(ss -Hltnp "sport = :$port" 2>/dev/null | head -n 1)
    who=$(sed -n 's/.*users:(("\([^"]*\)",pid=\([0-9]*\).*/\1, pid \2/p' <<<"$holder")
  else
    holder=$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null && echo yes || true) who=
  fi
  if [[ -z $holder ]]; then
    ok "port $port ($name) is free"
  else
    problem "port $port ($name) is taken by ${who:-another process (sudo ss -ltnp 'sport = :$port' names it)}"
    fix "${who:+stop ${who%%,*} (kill ${who##*pid }) or }pick another port: make lesson-N $name=$((port + 10))"
  fi
done

# Test control planes left behind: a check or test killed before it stopped its envtest
# API server and etcd leaves them running (their folder is a k8s_test_framework_* temporary
# one), and on a small machine they slow every later run down.
orphans=$(ps -eo pid=,ppid=,args= 2>/dev/null |
  awk '$2 == 1 && /k8s_test_framework_/ && /(kube-apiserver|etcd)/ {print $1}' | xargs)
if [[ -z $orphans ]]; then
  ok "no test API servers left running by killed checks"
else
  warnline "test API servers or etcds left running by killed checks (pids $orphans) use memory and CPU"
  fix "kill $orphans"
fi

# Kube context: the managers refuse any but a workshop cluster's (shared/cluster).
kubectl=$BIN/kubectl
[[ -x $kubectl ]] || kubectl=$(command -v kubectl || true)
if [[ -z $kubectl ]]; then
  note "no kubectl yet, kube context not checked (make binaries builds one)"
else
  context=$("$kubectl" config current-context 2>/dev/null || true)
  if [[ -z $context ]]; then
    ok "no current kube context; make lesson-N uses the embedded cluster"
  elif [[ $context == kind-* || $context == kwok-workshop* ]]; then
    ok "kube context $context is a workshop cluster; make lesson-N uses it"
  elif [[ $context == "${WORKSHOP_ALLOW_CONTEXT:-}" ]]; then
    warnline "kube context $context is not a workshop cluster, but WORKSHOP_ALLOW_CONTEXT lets your controllers use it"
  else
    warnline "kube context $context is not a workshop cluster: the managers refuse it, and make lesson-N uses the embedded cluster instead"
    fix "eval \$(make -s env) (the embedded cluster), or WORKSHOP_ALLOW_CONTEXT=$context if you mean it"
  fi
fi

# Docker is optional: kind needs it, the embedded cluster does not.
if ! command -v docker >/dev/null; then
  ok "no Docker: fine, the embedded cluster needs none (only make kind-up does)"
elif err=$(timeout 15 docker info 2>&1 >/dev/null); then
  ok "Docker is running: make kind-up works too"
elif [[ $err == *"permission denied"* ]]; then
  note "Docker is installed but you may not use it; the embedded cluster needs none. For kind:"
  run "sudo usermod -aG docker \$USER, then log in again"
else
  note "Docker is installed but not running; the embedded cluster needs none. For kind:"
  run "sudo systemctl start docker (or open Docker Desktop)"
fi

if ((problems > 0)); then
  printf '\n%d problem(s) above; fix them and run make doctor again.\n' "$problems"
  exit 1
fi
printf '\nNothing blocks you. Next: make solution-1\n'

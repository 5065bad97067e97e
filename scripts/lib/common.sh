# shellcheck shell=bash
# Common settings for the workshop's scripts. Source it; it defines no behaviour of its own.
#
#   ROOT      the repository's top folder
#   CACHE     ignored folder for everything built or started (.cache)
#   BIN       the versioned folder of built binaries (see build-binaries.sh)
#   versions  every variable of scripts/versions.env

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE="$ROOT/.cache"
# shellcheck source=../versions.env
source "$ROOT/scripts/versions.env"

# sha256 prints the SHA-256 of its input as sha256sum does ("HASH  -"): a stock Mac has
# no sha256sum, but Perl's shasum, which prints the same.
sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum
  else
    shasum -a 256
  fi
}

# The binaries' folder is named after every input that changes them, so a new pin or a
# new go.sum builds into a new folder and an unchanged tree never rebuilds. The pins
# after the line "# -- Not built from source" in versions.env change no binary.
bin_key() {
  { sed '/^# -- Not built from source/,$d' "$ROOT/scripts/versions.env"; cat \
    "$ROOT/scripts/controlplane/go.mod" "$ROOT/scripts/controlplane/go.sum" \
    "$ROOT/scripts/controlplane/etcd/main.go" \
    "$ROOT/scripts/tools/go.mod" "$ROOT/scripts/tools/go.sum" \
    "$ROOT/scripts/kubebuilder/go.mod" "$ROOT/scripts/kubebuilder/go.sum" \
    "$ROOT/scripts/helm/go.mod" "$ROOT/scripts/helm/go.sum" \
    "$ROOT/scripts/delve/go.mod" "$ROOT/scripts/delve/go.sum"; } |
    sha256 | cut -c1-12
}
# shellcheck disable=SC2034 # for the scripts that source this file
BIN="$CACHE/bin/kubernetes-$KUBERNETES_VERSION-$(bin_key)"

# say prints a progress line to stderr, so that scripts can print results on stdout.
say() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }
warn() { printf '\033[33mwarning:\033[0m %s\n' "$*" >&2; }
die() { printf '\033[31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# tool_path NAME builds the workshop's own tool scripts/tools/NAME (lessongen, todos,
# localwebhook, scalebench) into the cache and prints its path; go build does nothing when
# nothing changed, and with -trimpath a new clone of the same code compiles nothing again.
tool_path() {
  (cd "$ROOT/scripts/tools" && GOWORK=off go build -trimpath -o "$CACHE/tools/$1" "./$1") && echo "$CACHE/tools/$1"
}

# tool NAME ARGS... runs the workshop's own tool scripts/tools/NAME.
tool() {
  local path
  path=$(tool_path "$1")
  shift
  "$path" "$@"
}

# workshop ARGS... runs the workshop command (scripts/tools/workshop: stage folders,
# controller-gen's outputs and their cache, known symptoms, the learner's commands) on
# this checkout. WORKSHOP_BIN, when set, is its binary: a script that runs it often, or
# several steps at once, builds it once; the command sets it for the scripts it runs.
workshop() {
  [[ -n ${WORKSHOP_BIN:-} ]] || WORKSHOP_BIN=$(tool_path workshop)
  "$WORKSHOP_BIN" -root "$ROOT" "$@"
}

# copy_listed FROM TO copies the files listed on stdin, one per line and relative to
# FROM, into the same places under TO, making the folders they need (what GNU cp's parents
# option does, which a Mac's cp lacks).
copy_listed() {
  local file
  while IFS= read -r file; do
    mkdir -p "$2/$(dirname "$file")"
    cp -p "$1/$file" "$2/$file"
  done
}

# controller_gen_outputs DIR prints, one per line and relative to DIR, the files
# controller-gen wrote into the module DIR (the Go list: workshop generated-files), for the
# scripts that remove or copy them (deploy.sh, bench.sh, faults.sh, discovery-check.sh).
controller_gen_outputs() { workshop generated-files "$1"; }

# seconds_since START prints the whole seconds elapsed since START (from `date +%s`).
seconds_since() { echo $(($(date +%s) - $1)); }

# now_ms prints the milliseconds since the epoch, from the workshop's clock tool: a stock
# Mac's date has no %N (it prints a literal N), nor its bash 3.2 $EPOCHREALTIME. A script
# that times things sets CLOCK=$(tool_path clock) first, so that no build of the tool
# falls inside what it times, nor happens at each $(now_ms).
CLOCK=
now_ms() {
  [[ -n $CLOCK ]] || CLOCK=$(tool_path clock)
  "$CLOCK"
}


# refresh_discovery makes kubectl forget what it discovered of the current cluster and
# ask again. kubectl keeps the groups, versions and kinds of a server for six hours, by
# its address, and asks for a kind in the version it found preferred: after a CRD lost
# that version, or on a new cluster at an old one's address (kwokctl reuses addresses),
# it gets "the server could not find the requested resource" for objects that exist.
refresh_discovery() { kubectl api-resources >/dev/null; }

# apply_crds DIR applies the CRDs in DIR server-side. The stages of a track share their
# kinds: a stage's CRD takes over the fields another stage's version of it set
# (--force-conflicts). A refusal is said with what it means (crd_apply_problem).
apply_crds() {
  local out
  if out=$(kubectl apply --server-side --force-conflicts -f "$1" 2>&1); then
    printf '%s\n' "$out"
    return 0
  fi
  printf '%s\n' "$out" >&2
  die "installing the CRDs of ${1#"$ROOT"/} failed$(crd_apply_problem "$out")"
}

# crd_apply_problem OUTPUT prints, after a colon, what a failed CRD apply's OUTPUT means
# and the command that clears it, for the refusals the workshop leads to; nothing for
# others. A CRD whose status.storedVersions names a version the new CRD lacks (lesson
# 13's v2, after its storage migration, under lesson 01, 02 or 12's v1-only CRD) is
# refused: the API server will not forget a version objects may still be stored in.
crd_apply_problem() {
  local stored='"([^"]+)" is invalid: status\.storedVersions\[[0-9]+\]: Invalid value: "([^"]+)": missing from spec\.versions'
  [[ $1 =~ $stored ]] || return 0
  local crd=${BASH_REMATCH[1]} version=${BASH_REMATCH[2]}
  printf "%s" ": the cluster's CRD $crd has stored objects in $version (its status.storedVersions)," \
    " a version this CRD does not have, so the API server will not replace it: a later lesson of" \
    " the track left it (lesson 13 migrates ImoocPods to v2). \`kubectl delete crd $crd\` clears it," \
    " and deletes every object of its kind; see shared/TROUBLESHOOTING.md, entry 20"
}

# wait_established ARGS... waits, for at most 30s, until the CRDs that ARGS name to
# kubectl (crd --all, crd NAME, -f DIR) are Established. A CRD read before the API
# server's controller gave it any condition has status.conditions null, and kubectl
# wait fails at once on it ("accessor error: <nil> is of the type <nil>") instead of
# waiting: that read is tried again. Any other failure is said.
wait_established() {
  local deadline=$((SECONDS + 30)) out
  until out=$(kubectl wait --for=condition=Established "$@" --timeout=$((deadline - SECONDS))s 2>&1 >/dev/null); do
    if [[ $out != *'.status.conditions accessor error: <nil>'* || $SECONDS -ge $deadline ]]; then
      printf '%s\n' "$out" >&2
      return 1
    fi
    sleep 0.2
  done
}

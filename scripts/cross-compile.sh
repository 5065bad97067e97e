#!/usr/bin/env bash
# Proves, from any machine, that the workshop builds for macOS (Apple silicon and Intel,
# cgo off as a learner's Go has it without Xcode): every Go module of go.work vets for
# darwin, the workshop's tools (scripts/tools) build for darwin, and so does every binary
# scripts/build-binaries.sh builds.
#
# The binaries are built into a temporary folder and thrown away. They take about 17
# minutes per architecture on a fresh 2-core machine, so a success is recorded in a stamp
# named after the pins, as the binaries' folder is ($BIN), in a cache every checkout of
# the machine shares: a machine builds them once per pin, not on each run. The modules
# and tools follow the code, and are checked on every run (seconds, once Go's build
# cache knows them).
#
# Usage: scripts/cross-compile.sh [ARCH...]   the darwin architectures: arm64 amd64 when none
source "$(dirname "$0")/lib/common.sh"
cd "$ROOT"

STAMPS="${XDG_CACHE_HOME:-$HOME/.cache}/operator-workshop/darwin"

# The binaries of scripts/build-binaries.sh: name, module folder, package. A binary added
# there and not here fails below.
binaries() {
  cat <<EOF
etcd                    scripts/controlplane ./etcd
kube-apiserver          scripts/controlplane k8s.io/kubernetes/cmd/kube-apiserver
kube-controller-manager scripts/controlplane k8s.io/kubernetes/cmd/kube-controller-manager
kube-scheduler          scripts/controlplane k8s.io/kubernetes/cmd/kube-scheduler
kubectl                 scripts/controlplane k8s.io/kubernetes/cmd/kubectl
kwok                    scripts/tools        sigs.k8s.io/kwok/cmd/kwok
kwokctl                 scripts/tools        sigs.k8s.io/kwok/cmd/kwokctl
controller-gen          scripts/tools        sigs.k8s.io/controller-tools/cmd/controller-gen
kustomize               scripts/tools        sigs.k8s.io/kustomize/kustomize/v5
helm                    scripts/helm         helm.sh/helm/v4/cmd/helm
kind                    scripts/tools        sigs.k8s.io/kind
goimports               scripts/tools        golang.org/x/tools/cmd/goimports
kubebuilder             scripts/kubebuilder  sigs.k8s.io/kubebuilder/v4
dlv                     scripts/delve        github.com/go-delve/delve/cmd/dlv
EOF
}

listed=$(binaries | awk '{print $1}' | sort)
built=$(sed -n 's/^build \([a-z-]*\) .*/\1/p' scripts/build-binaries.sh | sort)
[[ $listed == "$built" ]] ||
  die "scripts/build-binaries.sh builds other binaries than scripts/cross-compile.sh checks; make the two lists alike:"$'\n'"$(diff <(echo "$listed") <(echo "$built") || true)"

archs="$*"
[[ -n $archs ]] || archs="arm64 amd64"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# go.work's modules, relative to the top, as patterns of their packages.
modules=$(go list -m -f '{{.Dir}}' | sed "s|^$ROOT/|./|; s|\$|/...|")

for arch in $archs; do
  case $arch in
    arm64 | amd64) ;;
    *) die "no darwin architecture $arch: give arm64 or amd64" ;;
  esac
  export GOOS=darwin GOARCH=$arch CGO_ENABLED=0

  start=$(date +%s)
  # shellcheck disable=SC2086 # one pattern per module
  go vet $modules
  say "Every module of go.work vets for darwin/$arch ($(seconds_since "$start")s)"

  start=$(date +%s)
  (cd scripts/tools && GOWORK=off go vet ./... && GOWORK=off go build -o "$out/" ./...)
  rm -rf "${out:?}"/*
  say "The tools of scripts/tools vet and build for darwin/$arch ($(seconds_since "$start")s)"

  stamp="$STAMPS/$(basename "$BIN")-$arch"
  if [[ -e $stamp ]]; then
    say "The binaries of make binaries built for darwin/$arch at these pins before ($stamp)"
    continue
  fi
  say "Building the binaries of make binaries for darwin/$arch: about 17 minutes on a fresh 2-core machine, once per pin"
  all_start=$(date +%s)
  while read -r name dir pkg; do
    start=$(date +%s)
    (cd "$dir" && GOWORK=off go build -trimpath -ldflags "-s -w" -o "$out/$name" "$pkg")
    rm -f "$out/$name"
    say "Built $name for darwin/$arch in $(seconds_since "$start")s"
  done < <(binaries)
  mkdir -p "$STAMPS"
  date -u +%Y-%m-%dT%H:%M:%SZ >"$stamp"
  say "Every binary of make binaries builds for darwin/$arch ($(seconds_since "$all_start")s)"
done

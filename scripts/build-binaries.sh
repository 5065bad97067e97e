#!/usr/bin/env bash
# Builds every binary the workshop runs, from the pinned sources, through the Go module
# proxy: the control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl) and the tools (kwok, kwokctl, controller-gen, kustomize, kind,
# goimports). Nothing is downloaded but Go modules.
#
# Binaries land in a folder named after the pins ($BIN, linked as .cache/bin/current);
# a binary already there is not built again. The first build takes about ten minutes
# on two cores; later ones take seconds.
#
# Usage: scripts/build-binaries.sh        build what is missing, print the folder
source "$(dirname "$0")/lib/common.sh"

mkdir -p "$BIN"

# The apiserver reports the version stamped here; without it, it says
# v0.0.0-master+$Format:%H$ and kubectl cannot parse that.
minor=${KUBERNETES_VERSION#v1.}; minor=${minor%%.*}
version_flags="-X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION
  -X k8s.io/component-base/version.gitMajor=1
  -X k8s.io/component-base/version.gitMinor=$minor
  -X k8s.io/component-base/version.gitTreeState=clean"

# build NAME MODULE_DIR PACKAGE [LDFLAGS]
build() {
  local name=$1 dir=$2 pkg=$3 ldflags=${4:-}
  if [[ -x "$BIN/$name" ]]; then
    return
  fi
  say "Building $name ($pkg)"
  local start
  start=$(date +%s)
  (cd "$dir" && GOWORK=off go build -trimpath -ldflags "-s -w $ldflags" -o "$BIN/$name.tmp" "$pkg")
  mv "$BIN/$name.tmp" "$BIN/$name"
  say "Built $name in $(seconds_since "$start")s"
}

total_start=$(date +%s)
cp_dir="$ROOT/scripts/controlplane"
tools_dir="$ROOT/scripts/tools"
build etcd                    "$cp_dir" ./etcd
build kube-apiserver          "$cp_dir" k8s.io/kubernetes/cmd/kube-apiserver "$version_flags"
build kube-controller-manager "$cp_dir" k8s.io/kubernetes/cmd/kube-controller-manager "$version_flags"
build kube-scheduler          "$cp_dir" k8s.io/kubernetes/cmd/kube-scheduler "$version_flags"
build kubectl                 "$cp_dir" k8s.io/kubernetes/cmd/kubectl "$version_flags"
build kwok                    "$tools_dir" sigs.k8s.io/kwok/cmd/kwok
build kwokctl                 "$tools_dir" sigs.k8s.io/kwok/cmd/kwokctl
build controller-gen          "$tools_dir" sigs.k8s.io/controller-tools/cmd/controller-gen
build kustomize               "$tools_dir" sigs.k8s.io/kustomize/kustomize/v5
build kind                    "$tools_dir" sigs.k8s.io/kind
build goimports               "$tools_dir" golang.org/x/tools/cmd/goimports

ln -sfn "$(basename "$BIN")" "$CACHE/bin/current"
say "Binaries ready in .cache/bin/current ($(seconds_since "$total_start")s)"

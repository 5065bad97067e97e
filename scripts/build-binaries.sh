#!/usr/bin/env bash
# Builds the binaries the workshop runs, from the pinned sources, through the Go module
# proxy: the control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl) and the tools (kwok, kwokctl, controller-gen, kustomize, kind,
# goimports, kubebuilder, helm, dlv). Nothing is downloaded but Go modules.
#
# Binaries land in a folder named after the pins ($BIN, linked as .cache/bin/current);
# a binary already there is not built again. The first build of all of them on a fresh
# 2-core machine took 17.5 minutes (kube-apiserver alone 8) before helm and kubebuilder
# joined (their minutes below are estimates); with Go's build cache warm,
# a new pin rebuilds everything in about a minute; an unchanged tree builds nothing.
#
# Usage: scripts/build-binaries.sh          build what is missing, all of them
#        scripts/build-binaries.sh tests    only what make check-N needs (etcd,
#                                           kube-apiserver, controller-gen): about 10
#                                           minutes on a fresh machine, the rest waits for
#                                           the first cluster
source "$(dirname "$0")/lib/common.sh"

case ${1:-all} in
  all) only= ;;
  tests) only=" etcd kube-apiserver controller-gen " ;;
  *) die "usage: $0 [tests]" ;;
esac
mkdir -p "$BIN"

# The apiserver reports the version stamped here; without it, it says
# v0.0.0-master+$Format:%H$ and kubectl cannot parse that.
minor=${KUBERNETES_VERSION#v1.}; minor=${minor%%.*}
version_flags="-X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION
  -X k8s.io/component-base/version.gitMajor=1
  -X k8s.io/component-base/version.gitMinor=$minor
  -X k8s.io/component-base/version.gitTreeState=clean"

# build NAME MINUTES MODULE_DIR PACKAGE [LDFLAGS] builds one binary; MINUTES is what it
# takes on a fresh 2-core machine with a cold Go build cache, said before it starts.
build() {
  local name=$1 minutes=$2 dir=$3 pkg=$4 ldflags=${5:-}
  if [[ -x "$BIN/$name" || ( -n $only && $only != *" $name "* ) ]]; then
    return
  fi
  if [[ -z ${announced:-} ]]; then
    if [[ -n $only ]]; then
      say "Building what the tests need (etcd, kube-apiserver, controller-gen) into ${BIN#"$ROOT"/}: about 10 minutes on a fresh 2-core machine, once; the rest is built for the first cluster"
    else
      say "Building the binaries from source into ${BIN#"$ROOT"/}: about 20 minutes on a fresh 2-core machine, once"
    fi
    announced=1
  fi
  say "Building $name ($pkg): about $minutes min on a fresh 2-core machine, seconds with a warm Go cache"
  local start
  start=$(date +%s)
  (cd "$dir" && GOWORK=off go build -trimpath -ldflags "-s -w $ldflags" -o "$BIN/$name.tmp" "$pkg")
  mv "$BIN/$name.tmp" "$BIN/$name"
  say "Built $name in $(seconds_since "$start")s"
}

total_start=$(date +%s)
cp_dir="$ROOT/scripts/controlplane"
tools_dir="$ROOT/scripts/tools"
build etcd                     1 "$cp_dir" ./etcd
build kube-apiserver           8 "$cp_dir" k8s.io/kubernetes/cmd/kube-apiserver "$version_flags"
build controller-gen           1 "$tools_dir" sigs.k8s.io/controller-tools/cmd/controller-gen
build kube-controller-manager  3 "$cp_dir" k8s.io/kubernetes/cmd/kube-controller-manager "$version_flags"
build kube-scheduler           1 "$cp_dir" k8s.io/kubernetes/cmd/kube-scheduler "$version_flags"
build kubectl                  2 "$cp_dir" k8s.io/kubernetes/cmd/kubectl "$version_flags"
build kwok                     1 "$tools_dir" sigs.k8s.io/kwok/cmd/kwok
build kwokctl                  1 "$tools_dir" sigs.k8s.io/kwok/cmd/kwokctl
build kustomize                1 "$tools_dir" sigs.k8s.io/kustomize/kustomize/v5
build helm                     3 "$ROOT/scripts/helm" helm.sh/helm/v4/cmd/helm "-X helm.sh/helm/v4/internal/version.version=$HELM_VERSION"
build kind                     1 "$tools_dir" sigs.k8s.io/kind
build goimports                1 "$tools_dir" golang.org/x/tools/cmd/goimports
build kubebuilder              2 "$ROOT/scripts/kubebuilder" sigs.k8s.io/kubebuilder/v4
build dlv                      1 "$ROOT/scripts/delve" github.com/go-delve/delve/cmd/dlv

# current names the pins' folder as soon as anything is in it: a binary still missing
# there is built by the next command that needs it.
ln -sfn "$(basename "$BIN")" "$CACHE/bin/current"
if [[ -n ${announced:-} ]]; then
  what="Binaries"
  [[ -z $only ]] || what="The binaries the tests need are"
  say "$what ready in .cache/bin/current ($(seconds_since "$total_start")s)"
fi

#!/usr/bin/env bash
# A kind cluster for learners with Docker: the same Kubernetes version as the embedded
# cluster, on real (containerised) nodes. kind writes the context kind-workshop into
# your kubeconfig, and every `make lesson-N` then uses it.
#
# Usage: scripts/kind.sh up|down
source "$(dirname "$0")/lib/common.sh"

kind() { "$CACHE/bin/current/kind" "$@"; }
case ${1:-} in
  up)
    command -v docker >/dev/null || die "kind needs Docker; without it, use the embedded cluster: make cluster-up"
    say "Creating the kind cluster 'workshop' ($KIND_NODE_IMAGE, one control plane and two workers)"
    kind create cluster --name workshop --image "$KIND_NODE_IMAGE" --config "$ROOT/scripts/kind-config.yaml" --wait 120s
    ;;
  down) kind delete cluster --name workshop ;;
  *) die "usage: $0 up|down" ;;
esac

#!/usr/bin/env bash
# kubectl keeps what it discovered of a server (its groups, versions and kinds) for six
# hours, in a cache named after the server's address. It asks for a kind in the version
# the cache prefers: when that version is no longer served, it gets "the server could not
# find the requested resource" for an object that exists. That happens when
#   - a CRD loses a version on the same cluster (lesson 13's walkthrough puts back lesson
#     02's v1-only ImoocPod after v2), and
#   - a new embedded cluster starts: kwokctl gives it the address the last one had, whose
#     cache may say ImoocPod is v2.
# Installing CRDs (scripts/lib/manager.sh, scripts/crds.sh) and starting a cluster
# (scripts/cluster.sh up) refresh that cache.
#
# discovery_check proves both on the current embedded cluster, which it restarts. It
# asks for ImoocPods by kind alone, the way a learner does.
#
# Usage: scripts/discovery-check.sh            on the embedded cluster
#   or, from a script with a cluster:  source scripts/discovery-check.sh; discovery_check
# It honours WORKSHOP_CLUSTER, as scripts/cluster.sh does.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"
source "$ROOT/scripts/lib/manager.sh"

# discovery_demo_reads DESCRIPTION creates the ImoocPod demo of lesson 01's sample in the
# namespace workshop-discovery and reads it back by kind alone.
discovery_demo_reads() {
  kubectl create namespace workshop-discovery --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  kubectl apply -n workshop-discovery -f "$(stage_dir solutions 1)/config/samples/apps_v1_imoocpod.yaml" >/dev/null
  local out
  out=$(kubectl get imoocpod demo -n workshop-discovery -o name 2>&1) ||
    die "$1: kubectl get imoocpod demo failed: $out"
  say "$1: kubectl reads ImoocPod demo"
}

# discovery_v2_cached installs lesson 13's CRD (ImoocPod v1 and v2, v2 preferred) and
# lists ImoocPods, so that kubectl's cache for this cluster's address prefers v2.
discovery_v2_cached() {
  manager_install_crds "$(stage_dir solutions 13)"
  kubectl get imoocpods --all-namespaces >/dev/null 2>&1 || die "kubectl cannot list ImoocPods of lesson 13's CRD"
}

discovery_check() {
  export PATH="$CACHE/bin/current:$PATH"
  KUBECONFIG=$("$ROOT/scripts/cluster.sh" kubeconfig)
  export KUBECONFIG
  local crd=imoocpods.apps.workshop.dev address

  say "A CRD that goes back from v1 and v2 to v1 alone, on the same cluster"
  discovery_v2_cached
  kubectl delete crd "$crd" --wait=true >/dev/null
  manager_install_crds "$(stage_dir solutions 1)"
  discovery_demo_reads "After lesson 01's CRD replaced lesson 13's"

  say "A new cluster at the address of one that served ImoocPod v2"
  discovery_v2_cached
  address=$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')
  "$ROOT/scripts/cluster.sh" recreate 3
  [[ $(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}') == "$address" ]] ||
    die "the new cluster is not at $address: this check needs kwokctl to reuse the address"
  # As a learner would install them: kubectl apply, no script of ours.
  kubectl apply --server-side -f "$(stage_dir solutions 1)/config/crd/bases" >/dev/null
  wait_established crd "$crd"
  discovery_demo_reads "On the new cluster, with lesson 01's CRD"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  discovery_check
fi

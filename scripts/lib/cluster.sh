# shellcheck shell=bash
# Picks the cluster a stage runs on. Source after common.sh.

# use_cluster keeps the current kube context when it is a workshop cluster (kind-*, the
# embedded kwok-workshop, or $WORKSHOP_ALLOW_CONTEXT) and otherwise starts the embedded
# cluster and points KUBECONFIG at it. The manager checks the context again on start.
use_cluster() {
  local current
  current=$(kubectl config current-context 2>/dev/null || true)
  if [[ $current == kind-* || $current == kwok-workshop* ||
    (-n ${WORKSHOP_ALLOW_CONTEXT:-} && $current == "$WORKSHOP_ALLOW_CONTEXT") ]]; then
    say "Using the current kube context, $current"
    return
  fi
  [[ -n $current ]] && say "The current kube context, $current, is not a workshop cluster; using the embedded one"
  "$ROOT/scripts/cluster.sh" up "${NODES:-3}"
  KUBECONFIG=$("$ROOT/scripts/cluster.sh" kubeconfig)
  export KUBECONFIG
}

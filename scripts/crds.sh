#!/usr/bin/env bash
# Installs or removes lesson N's CustomResourceDefinitions on the cluster (make install-N,
# make uninstall-N), as kubebuilder's make install and make uninstall do.
#
# Removing a CRD deletes every object of its kind, in every namespace, with no way back:
# uninstall first says what would go, and goes on only when you answer yes (or CONFIRM=yes).
#
# Usage: scripts/crds.sh install|uninstall N
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

usage="usage: $0 install|uninstall N"
action=${1:?$usage}
dir=$(stage_dir lessons "${2:?$usage}")
name="lessons/$(basename "$dir")"
crds="$dir/config/crd/bases"

export PATH="$CACHE/bin/current:$PATH"
source "$ROOT/scripts/lib/cluster.sh"
use_cluster

case $action in
install)
  workshop generate-lesson "$dir"
  say "Installing the CRDs of $name"
  apply_crds "$crds"
  wait_established crd --all
  refresh_discovery
  ;;
uninstall)
  names=$(kubectl get -f "$crds" --ignore-not-found -o name)
  [[ -n $names ]] || { say "None of the CRDs of $name is installed"; exit 0; }
  say "Removing these CRDs deletes every object of their kinds, in every namespace:"
  for crd in $names; do
    plural=${crd#*/}
    count=$(kubectl get "$plural" --all-namespaces --no-headers 2>/dev/null | wc -l)
    printf '    %s: %d object(s)\n' "$plural" "$count" >&2
  done
  if [[ ${CONFIRM:-} != yes ]]; then
    [[ -t 0 ]] || die "not removing anything: run it in a terminal to answer, or with CONFIRM=yes"
    read -r -p "Type yes to remove them: " answer
    [[ $answer == yes ]] || die "nothing removed"
  fi
  kubectl delete -f "$crds" --ignore-not-found --wait=true
  refresh_discovery
  ;;
*) die "$usage" ;;
esac

#!/usr/bin/env bash
# Tests the NodePool operator's Helm chart (dist/chart of solution 09) the way a user
# meets it, on a fresh embedded cluster of its own (kwok-workshop-helm):
#
#   lint       helm lint passes; the chart refuses two replicas without leader
#              election, and webhooks without cert-manager or a CA
#   template   with its defaults it renders the objects `kustomize build config/default`
#              writes, by kind and name, the Namespace aside (helm install
#              --create-namespace makes it), and the CRD
#   install    without cert-manager and webhooks (the embedded cluster runs neither a
#              cert-manager nor a container to call): the CRD is Established and kept
#              by policy, the Deployment rolls out, the manager's service account may do
#              what its roles grant, and no webhook configuration was made
#   upgrade    to a new chart version whose CRD changed, with one replica: the Deployment
#              has one, the PodDisruptionBudget is gone, the CRD changed and is the same
#              object, and a NodePool made before is still there
#   uninstall  every object of the release is gone; the CRD and the NodePool stay
#
# A stage whose PROJECT lists kubebuilder's helm plugin (solution 15, the capstone) has the
# chart that plugin writes; it gets the same steps, in its terms: lint, the CRD rendered
# as a template kept by policy, install, an upgrade that changes the CRD, uninstall.
#
# Usage: scripts/helm.sh [STAGE]      STAGE: a stage with dist/chart
#                                     (solutions/09-nodepool-deploy when none)
#   HELM_CLUSTER=workshop-helm        its cluster, kwok-$HELM_CLUSTER; it runs no manager,
#                                     so it needs no port of its own
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

stage=${1:-$(stage_dir solutions 9)}
stage=$(cd "$stage" && pwd)
chart="$stage/dist/chart"
[[ -f $chart/Chart.yaml ]] || die "${stage#"$ROOT"/} has no Helm chart (dist/chart/Chart.yaml): lesson 09 is the first NodePool stage with one"
# The binaries of these pins ($BIN), which make binaries links as .cache/bin/current.
export WORKSHOP_CLUSTER=${HELM_CLUSTER:-workshop-helm} PATH="$BIN:$PATH"
[[ -x $BIN/helm ]] || die "no helm in ${BIN#"$ROOT"/}: run \`make binaries\`"
work="$CACHE/helm"
rm -rf "$work"
mkdir -p "$work"
# Helm keeps its repositories, plugins and caches in the user's home unless told: here,
# they stay in the workshop's cache.
export HELM_CACHE_HOME="$work/home/cache" HELM_CONFIG_HOME="$work/home/config" HELM_DATA_HOME="$work/home/data"
release=nodepool ns=nodepool-system crd=nodepools.nodes.workshop.dev
account="system:serviceaccount:$ns:$release-controller-manager"
start=$(date +%s)

failures=0
# check WHAT COMMAND... runs COMMAND and prints PASS or FAIL for WHAT.
check() {
  local what=$1
  shift
  if "$@" >"$work/check.out" 2>&1; then
    printf '  \033[32mPASS\033[0m %s\n' "$what"
  else
    printf '  \033[31mFAIL\033[0m %s\n' "$what"
    sed 's/^/       /' "$work/check.out"
    failures=$((failures + 1))
  fi
}
present() { kubectl get "$@" -o name; }
absent() {
  local out
  out=$(kubectl get "$@" --ignore-not-found -o name) || return 1
  [[ -z $out ]] || { echo "still there: $out"; return 1; }
}
# is WANT COMMAND... succeeds when COMMAND prints WANT.
is() {
  local want=$1 got
  shift
  got=$("$@") || return 1
  [[ $got == "$want" ]] || { echo "got '$got', want '$want'"; return 1; }
}
# refused WORDS ARGS... succeeds when helm template with ARGS fails and says WORDS.
refused() {
  local words=$1 out
  shift
  if out=$(helm template "$release" "$chart" -n "$ns" "$@" 2>&1); then
    echo "helm template $* rendered"
    return 1
  fi
  [[ $out == *"$words"* ]] || { echo "$out"; return 1; }
}
# objects prints "apiVersion kind namespace name" for each object of the YAML documents
# on stdin, sorted.
objects() {
  awk 'function flush() { if (kind != "") print version, kind, namespace, name; version = kind = namespace = name = "" }
    /^---/ { flush(); next }
    /^apiVersion: / { version = $2 }
    /^kind: / { kind = $2 }
    /^metadata:/ { meta = 1; next }
    /^[^ #]/ { meta = 0 }
    meta && /^  name: / { name = $2 }
    meta && /^  namespace: / { namespace = $2 }
    END { flush() }' | sort
}
# same_objects compares the objects of the chart, released as nodepool in nodepool-system,
# with those of config/default and the CRD: the same kinds, with the same names.
same_objects() {
  local want got
  want=$({
    kustomize build "$stage/config/default" | objects | grep -v '^v1 Namespace '
    kustomize build "$stage/config/crd" | objects
  } | sort)
  got=$(helm template "$release" "$chart" -n "$ns" | objects)
  [[ $got == "$want" ]] || { diff <(echo "$want") <(echo "$got"); return 1; }
}
# can and cannot ARGS... ask the API server what the manager's service account may do.
# kubectl auth can-i exits 1 on a no, and on an error: cannot reads the answer.
can() { is yes kubectl auth can-i "$@" --as "$account"; }
cannot() {
  local out
  out=$(kubectl auth can-i "$@" --as "$account" 2>&1) || true
  [[ $out == no ]] || { echo "$out"; return 1; }
}
uid() { kubectl get "$@" -o jsonpath='{.metadata.uid}'; }

cleanup() { "$ROOT/scripts/cluster.sh" down >/dev/null 2>&1 || true; }
trap cleanup EXIT

start_cluster() {
  say "Starting a cluster of its own, kwok-$WORKSHOP_CLUSTER"
  "$ROOT/scripts/cluster.sh" down >/dev/null 2>&1
  "$ROOT/scripts/cluster.sh" up 1 2>&1 | grep -v '^  \|^The cluster is ready' >&2
  KUBECONFIG=$("$ROOT/scripts/cluster.sh" kubeconfig)
  export KUBECONFIG
}

# plugin_chart tests the chart kubebuilder's helm plugin wrote (the capstone's). Helm
# never upgrades nor deletes the CRDs of a chart's crds/ folder; this chart renders its
# CRD as a template instead (crd.enabled), annotated helm.sh/resource-policy: keep
# (crd.keep): an upgrade applies it, an uninstall leaves it and every object of its kind.
plugin_chart() {
  release=capstone ns=capstone-system crd=configmapcopies.copies.workshop.dev
  account="system:serviceaccount:$ns:$release-controller-manager"
  say "The chart of ${stage#"$ROOT"/}: lint and template"
  check "helm lint passes" helm lint --strict "$chart"
  check "the CRD is a template of the chart, kept by policy" \
    grep -q '"helm.sh/resource-policy": keep' <(helm template "$release" "$chart" -n "$ns" --show-only "templates/crd/$crd.yaml")
  check "crd.enabled=false renders no CRD (for a cluster whose CRDs someone else installs)" \
    absent_in_template CustomResourceDefinition --set crd.enabled=false

  start_cluster
  cat >"$work/values.yaml" <<'YAML'
certManager:
  enabled: false
webhook:
  enabled: false
YAML
  say "helm install, without cert-manager and webhooks"
  helm install "$release" "$chart" -n "$ns" --create-namespace -f "$work/values.yaml" >/dev/null
  check "the CRD is Established" wait_established crd "$crd"
  check "the CRD carries helm.sh/resource-policy: keep" \
    is keep kubectl get crd "$crd" -o jsonpath='{.metadata.annotations.helm\.sh/resource-policy}'
  check "the Deployment rolls out" kubectl -n "$ns" rollout status deployment "$release-controller-manager" --timeout=60s
  check "the manager may write ConfigMaps in any namespace (its ClusterRole, bound)" can create configmaps -n default
  check "... and ConfigMapCopies' status" can patch "$crd" --subresource=status
  check "... but not read Secrets" cannot get secrets -n default
  kubectl apply -f "$stage/config/samples/copies_v1_configmapcopy.yaml" >/dev/null
  crd_uid=$(uid crd "$crd")
  copy_uid=$(uid configmapcopy configmapcopy-sample)

  say "helm upgrade to a new chart version, with a changed CRD"
  cp -R "$chart" "$work/chart"
  sed 's/^version: .*/version: 0.1.1-upgrade/' "$chart/Chart.yaml" >"$work/chart/Chart.yaml"
  awk '{print} $0 == "    - cmcopy" {print "    - cmctest"}' "$chart/templates/crd/$crd.yaml" >"$work/chart/templates/crd/$crd.yaml"
  helm upgrade "$release" "$work/chart" -n "$ns" -f "$work/values.yaml" >/dev/null
  check "the upgrade changed the CRD (its new short name)" \
    is "cmcopy cmctest" kubectl get crd "$crd" -o jsonpath='{.spec.names.shortNames[*]}'
  check "the CRD is the same object" is "$crd_uid" uid crd "$crd"
  check "the ConfigMapCopy made before the upgrade is the same object" is "$copy_uid" uid configmapcopy configmapcopy-sample

  say "helm uninstall"
  helm uninstall "$release" -n "$ns" --wait >/dev/null 2>"$work/uninstall.err" || { cat "$work/uninstall.err" >&2; die "helm uninstall failed"; }
  check "the release's objects are gone" \
    absent -n "$ns" deployment/"$release-controller-manager" serviceaccount/"$release-controller-manager"
  check "its ClusterRole and ClusterRoleBinding are gone" \
    absent clusterrole/"$release-manager-role" clusterrolebinding/"$release-manager-rolebinding"
  check "the CRD stays (helm.sh/resource-policy: keep), the same object" is "$crd_uid" uid crd "$crd"
  check "the ConfigMapCopy stays, the same object" is "$copy_uid" uid configmapcopy configmapcopy-sample

  ((failures == 0)) || die "$failures checks of the chart failed (above)"
  say "The chart installs, upgrades and uninstalls as it should ($(seconds_since "$start")s)"
}

# absent_in_template KIND ARGS... fails when helm template with ARGS renders a KIND.
absent_in_template() {
  local kind=$1 out
  shift
  out=$(helm template "$release" "$chart" -n "$ns" "$@") || return 1
  ! grep -q "^kind: $kind\$" <<<"$out" || { echo "it renders a $kind"; return 1; }
}

if grep -q '^  helm.kubebuilder.io/v2-alpha:' "$stage/PROJECT" 2>/dev/null; then
  plugin_chart
  exit 0
fi

say "The chart of ${stage#"$ROOT"/}: lint and template"
check "helm lint passes" helm lint --strict "$chart"
check "two replicas without leader election are refused, naming the fields" \
  refused "manager.leaderElection is off" --set manager.leaderElection=false
check "webhooks without cert-manager or a CA are refused, naming the fields" \
  refused "webhook.caBundle is empty" --set certManager.enable=false
check "its defaults render the objects of config/default (the Namespace aside) and the CRD, by kind and name" same_objects

start_cluster

# No cert-manager and no container runs here: without webhooks, NodePools are stored
# unchecked, and nothing waits for a certificate.
cat >"$work/values.yaml" <<'YAML'
certManager:
  enable: false
webhook:
  enable: false
YAML
say "helm install, without cert-manager and webhooks"
helm install "$release" "$chart" -n "$ns" --create-namespace -f "$work/values.yaml" >/dev/null
check "the CRD is Established" wait_established crd "$crd"
check "the CRD carries helm.sh/resource-policy: keep" \
  is keep kubectl get crd "$crd" -o jsonpath='{.metadata.annotations.helm\.sh/resource-policy}'
check "the Deployment asks for two replicas" is 2 kubectl -n "$ns" get deployment "$release-controller-manager" -o jsonpath='{.spec.replicas}'
check "the Deployment rolls out" kubectl -n "$ns" rollout status deployment "$release-controller-manager" --timeout=60s
check "the ServiceAccount, the metrics Service and the PodDisruptionBudget exist" \
  present -n "$ns" serviceaccount/"$release-controller-manager" service/"$release-controller-manager-metrics-service" poddisruptionbudget/"$release-controller-manager"
check "the manager may patch nodes (its ClusterRole, bound)" can patch nodes
check "... and NodePools' status" can patch nodepools.nodes.workshop.dev --subresource=status
check "... create Events in the namespace default (its Role there, bound)" can create events.events.k8s.io -n default
check "... and hold a Lease in its own namespace (the leader election Role, bound)" can update leases.coordination.k8s.io -n "$ns"
check "... but not read Secrets" cannot get secrets -n "$ns"
check "no webhook configuration was made (webhook.enable=false)" \
  absent mutatingwebhookconfiguration/"$release-mutating-webhook-configuration" validatingwebhookconfiguration/"$release-validating-webhook-configuration"
kubectl apply -f "$stage/config/samples/nodes_v1_nodepool.yaml" >/dev/null
crd_uid=$(uid crd "$crd")
pool_uid=$(uid nodepool nodepool-sample)

say "helm upgrade to a new chart version, with a changed CRD and one replica"
# The chart's next version, whose CRD has one more short name: what a new field of the
# schema is to Helm, a change it must apply to the cluster's CRD.
cp -R "$chart" "$work/chart"
sed 's/^version: .*/version: 0.1.1-upgrade/' "$chart/Chart.yaml" >"$work/chart/Chart.yaml"
awk '{print} $0 == "    - np" {print "    - nptest"}' "$chart/files/crd.yaml" >"$work/chart/files/crd.yaml"
helm upgrade "$release" "$work/chart" -n "$ns" -f "$work/values.yaml" --set manager.replicas=1 >/dev/null
check "the Deployment asks for one replica" is 1 kubectl -n "$ns" get deployment "$release-controller-manager" -o jsonpath='{.spec.replicas}'
check "the PodDisruptionBudget is gone (with one replica it would block every drain)" \
  absent -n "$ns" poddisruptionbudget/"$release-controller-manager"
check "the upgrade changed the CRD (its new short name)" \
  is "np nptest" kubectl get crd "$crd" -o jsonpath='{.spec.names.shortNames[*]}'
check "the CRD is the same object" is "$crd_uid" uid crd "$crd"
check "the NodePool made before the upgrade is the same object" is "$pool_uid" uid nodepool nodepool-sample

say "helm uninstall"
helm uninstall "$release" -n "$ns" --wait >/dev/null 2>"$work/uninstall.err" || { cat "$work/uninstall.err" >&2; die "helm uninstall failed"; }
check "the release's objects in $ns are gone" \
  absent -n "$ns" deployment/"$release-controller-manager" serviceaccount/"$release-controller-manager" \
  service/"$release-controller-manager-metrics-service" role/"$release-leader-election-role" rolebinding/"$release-leader-election-rolebinding"
check "its Role and RoleBinding in the namespace default are gone" \
  absent -n default role/"$release-manager-role" rolebinding/"$release-manager-rolebinding"
check "its ClusterRoles and ClusterRoleBinding are gone" \
  absent clusterrole/"$release-manager-role" clusterrole/"$release-metrics-reader" clusterrolebinding/"$release-manager-rolebinding"
check "the CRD stays (helm.sh/resource-policy: keep), the same object" is "$crd_uid" uid crd "$crd"
check "the NodePool stays, the same object" is "$pool_uid" uid nodepool nodepool-sample

((failures == 0)) || die "$failures checks of the chart failed (above)"
say "The chart installs, upgrades and uninstalls as it should ($(seconds_since "$start")s)"

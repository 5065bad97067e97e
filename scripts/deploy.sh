#!/usr/bin/env bash
# Deploys a stage's operator into the current cluster the way a real one runs: its
# config/default (namespace, service account, least-privilege RBAC, two replicas with
# leader election, the webhook and metrics Services, the webhook configurations), and its
# CRDs on their own.
#
#   kind (kind-* context, needs Docker): builds the image, loads it onto the nodes
#     (never :latest), installs the pinned cert-manager (scripts/versions.env), applies
#     everything server-side and waits for the rollout.
#   embedded cluster: no image can run there (kwok simulates the pods: they reach
#     Running, and run nothing). Everything is applied server-side all the same; the
#     two objects of cert-manager.io are left out, since no cert-manager runs: a
#     certificate made on this machine (scripts/tools/localwebhook) replaces them, and the
#     webhook configurations call the manager on this machine. make lesson-9 runs that
#     manager as the Deployment's service account.
#
# Usage: scripts/deploy.sh deploy|undeploy|uninstall lessons|solutions N
#   undeploy   deletes config/default: the operator goes, the CRDs and every NodePool stay
#   uninstall  deletes the CRDs, and with them every custom resource; it lists them and
#              asks first (CONFIRM=yes answers for you)
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

action=${1:-}
kind=${2:-}
[[ $action =~ ^(deploy|undeploy|uninstall)$ && $kind =~ ^(lessons|solutions)$ ]] ||
  die "usage: $0 deploy|undeploy|uninstall lessons|solutions N"
dir=$(stage_dir "$kind" "${3:?usage: $0 deploy|undeploy|uninstall lessons|solutions N}")
[[ -f $dir/config/default/kustomization.yaml ]] ||
  die "${dir#"$ROOT"/} has no config/default: lesson 09 is the first NodePool stage that deploys"
export PATH="$CACHE/bin/current:$PATH"
STAGE_CACHE=${STAGE_CACHE:-$CACHE/stage}
WEBHOOK_PORT=${WEBHOOK_PORT:-19443}
context=$(kubectl config current-context 2>/dev/null || true)
[[ $context == kind-* || $context == kwok-workshop* ]] ||
  die "the current kube context, '${context:-none}', is not a workshop cluster: make cluster-up or make kind-up first"
n=$(basename "$dir"); n=${n%%-*}

# manifests prints config/default's objects; on the embedded cluster, without cert-manager's.
manifests() {
  if [[ $context == kind-* ]]; then
    kustomize build "$dir/config/default"
  else
    kustomize build "$dir/config/default" | awk '
      function flush() { if (doc != "" && !skip) printf "---\n%s", doc; doc = ""; skip = 0 }
      /^---$/ { flush(); next }
      /^apiVersion: cert-manager\.io\// { skip = 1 }
      { doc = doc $0 "\n" }
      END { flush() }'
  fi
}

deploy() {
  if [[ $context == kind-* ]]; then
    command -v docker >/dev/null || die "kind needs Docker"
    say "Building the image nodepool-manager:dev from ${dir#"$ROOT"/}"
    docker build --build-context shared="$ROOT/shared" -t nodepool-manager:dev "$dir"
    say "Loading it onto the kind nodes"
    "$CACHE/bin/current/kind" load docker-image nodepool-manager:dev --name "${context#kind-}"
    say "Installing cert-manager $CERT_MANAGER_VERSION"
    kubectl apply --server-side -f "https://github.com/cert-manager/cert-manager/releases/download/$CERT_MANAGER_VERSION/cert-manager.yaml" >/dev/null
    kubectl -n cert-manager rollout status deployment --timeout=180s
  fi
  say "Installing the CRDs (config/crd), on their own"
  kubectl apply --server-side --force-conflicts -k "$dir/config/crd"
  wait_established crd --all
  say "Applying config/default server-side$([[ $context == kind-* ]] || echo ', without its cert-manager Certificate and Issuer')"
  manifests | kubectl apply --server-side --force-conflicts -f -
  if [[ $context == kind-* ]]; then
    kubectl -n nodepool-system rollout status deployment/nodepool-controller-manager --timeout=180s
    return
  fi
  # What cert-manager would do, done here: a certificate (for 127.0.0.1, where the manager
  # runs), its Secret, and its CA in the webhook configurations, which call this machine.
  local certs="$STAGE_CACHE/certs-$n" kind hook ca
  tool localwebhook -webhooks "$dir/config/webhook" -port "$WEBHOOK_PORT" -cert-dir "$certs" >/dev/null
  kubectl -n nodepool-system create secret tls webhook-server-cert --cert "$certs/tls.crt" --key "$certs/tls.key" \
    --dry-run=client -o yaml | kubectl apply --server-side -f - >/dev/null
  for kind in mutating validating; do
    hook=$(kubectl get "${kind}webhookconfiguration" "$kind-webhook-configuration" -o jsonpath='{.webhooks[0].clientConfig.url}')
    ca=$(kubectl get "${kind}webhookconfiguration" "$kind-webhook-configuration" -o jsonpath='{.webhooks[0].clientConfig.caBundle}')
    kubectl patch "${kind}webhookconfiguration" "nodepool-$kind-webhook-configuration" --type=json -p \
      "[{\"op\":\"replace\",\"path\":\"/webhooks/0/clientConfig\",\"value\":{\"url\":\"$(sed -E 's#([^:])//+#\1/#g' <<<"$hook")\",\"caBundle\":\"$ca\"}}]" >/dev/null
    kubectl delete "${kind}webhookconfiguration" "$kind-webhook-configuration" >/dev/null
  done
  say "Deployed. The webhooks call https://127.0.0.1:$WEBHOOK_PORT: until a manager serves there (make lesson-$((10#$n))), the API server refuses every NodePool write"
}

undeploy() {
  say "Deleting config/default: the operator goes; the CRDs and every NodePool stay"
  manifests | kubectl delete --ignore-not-found --wait=true -f -
}

uninstall() {
  local crds resources
  crds=$(kustomize build "$dir/config/crd" | awk '$1 == "name:" && !done {print $2; done = 1}')
  resources=$(kubectl get nodepools -o name 2>/dev/null | paste -sd' ' - || true)
  warn "This deletes the CRD $crds, and with it every NodePool in the cluster: ${resources:-none}"
  if [[ ${CONFIRM:-} != yes ]]; then
    [[ -t 0 ]] || die "not deleting: run it in a terminal to be asked, or set CONFIRM=yes"
    local answer
    read -r -p "Type yes to delete them: " answer
    [[ $answer == yes ]] || die "not deleting"
  fi
  kubectl delete --ignore-not-found --wait=true -k "$dir/config/crd"
}

"$action"

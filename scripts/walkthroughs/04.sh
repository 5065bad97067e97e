# shellcheck shell=bash
# Stage 04: MyDaemonSet's admission webhooks. Sourced by scripts/run-stage.sh, which has
# installed the webhook configurations pointed at the manager on this machine and defines
# ROOT, STAGE_DIR, MANAGER_HOST, WEBHOOK_PORT, PROBE_PORT, METRICS_PORT, MANAGER_LOG,
# manager_errors and the walkthrough vocabulary.
NS=workshop-04
SAMPLES=$STAGE_DIR/config/samples
SELECTOR=apps.workshop.dev/mydaemonset=demo
POD_NODES="kubectl get pods -n $NS -l $SELECTOR --no-headers -o custom-columns=NODE:.spec.nodeName,PHASE:.status.phase,DELETING:.metadata.deletionTimestamp | awk '\$2==\"Running\" && \$3==\"<none>\" {print \$1}' | LC_ALL=C sort | xargs"
IMAGE_AND_POLICY="kubectl get mds demo -n $NS -o jsonpath='{.spec.image} {.spec.imagePullPolicy} {.metadata.generation}'"
# The ClusterRole of config/rbac/metrics_reader_role.yaml, under the name config/default
# gives it, and the binding that lets a scraper read the metrics.
READER=mydaemonset-metrics-reader
SCRAPER_BINDING=mydaemonset-metrics-scraper-04

# all_nodes prints the names of the cluster's nodes, sorted, on one line.
all_nodes() {
  kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | LC_ALL=C sort | xargs
}

remove_leftovers namespace/$NS clusterrolebinding/$SCRAPER_BINDING clusterrole/$READER

# pod_policies NAME prints the pull policies of the pods of the MyDaemonSet NAME, once each.
pod_policies() {
  kubectl get pods -n $NS -l "apps.workshop.dev/mydaemonset=$1" \
    -o jsonpath='{range .items[*]}{.spec.containers[0].imagePullPolicy}{"\n"}{end}' | sort -u | xargs
}

step "The API server calls the manager's webhooks"
run kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations
# envtest, which installed them, joins the URL and the path with a double slash; the
# API server's client joins them again with path.Join, which drops it.
expect "the validating webhook calls the manager on this machine, over TLS" \
  "https://$MANAGER_HOST:$WEBHOOK_PORT validate-apps-workshop-dev-v1-mydaemonset" \
  "kubectl get validatingwebhookconfiguration validating-webhook-configuration -o jsonpath='{.webhooks[0].clientConfig.url}' | sed -E 's#^(https://[^/]*)/+#\\1 #'" \
  "no configuration? the +kubebuilder:webhook markers generate config/webhook/manifests.yaml"
expect "the manager is ready only once its webhook server answers" "[+]webhook ok" \
  "curl -s 'http://127.0.0.1:$PROBE_PORT/readyz?verbose' | grep -F webhook" \
  "cmd/main.go should add the ready check \"webhook\": mgr.GetWebhookServer().StartedChecker()"

step "A valid MyDaemonSet is admitted, and defaulted"
fresh_namespace $NS
run kubectl apply -n $NS -f "$SAMPLES/apps_v1_mydaemonset.yaml"
expect "spec.imagePullPolicy was set to IfNotPresent (the image has a version tag)" \
  "registry.k8s.io/pause:3.10 IfNotPresent 1" "$IMAGE_AND_POLICY" \
  "the mutating webhook's Default should set it from defaultPullPolicy(spec.image)"
run kubectl get mds demo -n $NS -o jsonpath='{.spec}{"\n"}'
expect "every node runs one Running demo pod: the controller still works" "$(all_nodes)" "$POD_NODES" \
  "no pods? read the manager's log"
expect "the pods run with the defaulted pull policy" "IfNotPresent" "pod_policies demo" \
  "newDaemonPod should copy spec.imagePullPolicy into the container"

step "A bad MyDaemonSet is refused, every problem with its field"
# kubectl prints the causes of an Invalid answer, one per line, whoever refused: the
# schema or a webhook.
expect_refused "the image that is no reference is refused, with its field" \
  "kubectl apply -n $NS -f '$SAMPLES/bad_mydaemonset.yaml'" \
  '* spec.image: Invalid value: "registry.k8s.io/pause 3.10": must be [registry[:port]/]repository[:tag][@digest]' \
  "validateMyDaemonSet should return apierrors.NewInvalid with the errors of validateSpec; validateImage should use parseImage"
expect "the same answer names the node selector key with a space, with its field" \
  '* spec.nodeSelector[disk type]: Invalid value: "disk type"' \
  "kubectl apply -n $NS -f '$SAMPLES/bad_mydaemonset.yaml' 2>&1 | grep -oF '* spec.nodeSelector[disk type]: Invalid value: \"disk type\"'" \
  "validateNodeSelector should add a field.Invalid at path.Key(key) for each message of content.IsLabelKey, and validateMyDaemonSet return all the errors in one"
expect "nothing was stored" "" "kubectl get mds -n $NS bad --ignore-not-found -o name"

step "Updates are validated too"
expect_refused "an update to an image that is no reference is refused" \
  "kubectl patch mds demo -n $NS --type=merge -p '{\"spec\":{\"image\":\"registry.k8s.io/pause:3.10:3.9\"}}'" \
  'spec.image: Invalid value: "registry.k8s.io/pause:3.10:3.9"' \
  "ValidateUpdate should check the new object as ValidateCreate does"
expect_refused "an update to an empty image is refused by the CRD's schema, before any webhook" \
  "kubectl patch mds demo -n $NS --type=merge -p '{\"spec\":{\"image\":\"\"}}'" \
  "spec.image in body should be at least 1 chars long"
expect_refused "a toleration key that is no label key is refused by the webhook" \
  "kubectl patch mds demo -n $NS --type=merge -p '{\"spec\":{\"tolerations\":[{\"key\":\"disk type\",\"operator\":\"Exists\"}]}}'" \
  'spec.tolerations[0].key: Invalid value: "disk type"' \
  "validateSpec should call validateTolerations"
expect "demo is unchanged: same image, same generation" \
  "registry.k8s.io/pause:3.10 IfNotPresent 1" "$IMAGE_AND_POLICY"

step "An image tagged latest is admitted, with a warning"
expect_warned "kubectl printed the webhook's warning, and the MyDaemonSet was created" \
  "kubectl apply -n $NS -f '$SAMPLES/latest_mydaemonset.yaml'" \
  'spec.image: "registry.k8s.io/pause:latest" is tagged latest' "mydaemonset.apps.workshop.dev/latest created" \
  "warningsFor should return a warning for a floating image, and validateMyDaemonSet return it"
expect "its spec.imagePullPolicy was set to Always" "Always" \
  "kubectl get mds latest -n $NS -o jsonpath='{.spec.imagePullPolicy}'" \
  "defaultPullPolicy should return Always for the tag latest"
expect "its pods run with Always, one on every node" "Always $(($(all_nodes | wc -w)))" \
  "echo \$(pod_policies latest) \$(kubectl get pods -n $NS -l apps.workshop.dev/mydaemonset=latest --no-headers | wc -l)" \
  "newDaemonPod should copy spec.imagePullPolicy into the container"
run kubectl get mds -n $NS

step "The metrics endpoint: HTTPS, for those the API server says may read it"
expect_metrics_only_for_readers "$NS" "$READER" "$SCRAPER_BINDING"

step "The manager's log"
expect "the manager logged no errors" 0 "$MANAGER_ERRORS" "read ${MANAGER_LOG#"$ROOT"/}"
# The namespace controller removes the namespace and its pods in the background (about
# 10 s); the next run of this walkthrough waits for that before it starts.
kubectl delete namespace $NS --wait=false >/dev/null

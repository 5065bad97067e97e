# shellcheck shell=bash
# Stage 13: ImoocPod v2 beside v1, and the upgrade from lesson 02 without disruption.
# Sourced by scripts/run-stage.sh, which runs the manager and defines STAGE_DIR,
# WEBHOOK_PORT, STAGE_CACHE, MANAGER_HOST, WEBHOOK_CERT_DIR, start_manager, stop_manager,
# MANAGER_LOG and the walkthrough vocabulary. The walkthrough first puts back the cluster
# lesson 02 left (its v1-only CRD, its manager, an ImoocPod written in v1), then upgrades
# it as an operator's user would: the v2 CRD, the conversion webhook, the new manager;
# then migrates the storage. It ends as it began, with lesson 02's v1-only CRD: a CRD that
# has stored v2 cannot be replaced by the v1-only one of lessons 01, 02 and 12.
NS=workshop-13
CRD=imoocpods.apps.workshop.dev
# Every command names the version it reads: what one version shows of an object is the
# point of this walkthrough.
V1=imoocpods.v1.apps.workshop.dev
V2=imoocpods.v2.apps.workshop.dev
OLD=$(stage_dir solutions 2)
OLD_MANAGER="$STAGE_CACHE/manager-02-for-13"
ACTIVE="kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo --no-headers 2>/dev/null | grep -cv Terminating"
COLUMNS="kubectl get $V2 demo -n $NS --no-headers | awk '{print \$2, \$3, \$4}'"
POD_UIDS="kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo -o jsonpath='{.items[*].metadata.uid}' | tr ' ' '\n' | sort | xargs"
STORED="kubectl get crd $CRD -o jsonpath='{.status.storedVersions}'"
remove_leftovers namespace/$NS

step "Before the upgrade: lesson 02's v1-only CRD and manager, an ImoocPod written in v1"
stop_manager
# Lesson 02 has no webhook: v1's validating webhook comes with the upgrade.
manager_remove_webhooks "$STAGE_DIR"
# A CRD that has stored v2 cannot go back to v1 alone: the walkthrough starts from a
# cluster that never knew v2, which deletes every ImoocPod of the cluster.
run kubectl delete crd $CRD --ignore-not-found --wait=true
manager_install_crds "$OLD"
run kubectl get crd $CRD -o jsonpath='{.spec.versions[*].name} stored: {.status.storedVersions}{"\n"}'
manager_build "$OLD" "$OLD_MANAGER"
: >"$STAGE_CACHE/manager-02-for-13.log"
manager_start "$OLD_MANAGER" "$STAGE_CACHE/manager-02-for-13.log" "$PROBE_PORT" --metrics-bind-address 0
fresh_namespace $NS
run kubectl apply -n $NS -f "$OLD/config/samples/apps_v1_imoocpod.yaml"
expect "lesson 02's manager runs 3 pods: DESIRED CURRENT READY are 3 3 3" "3 3 3" \
  "kubectl get $V1 demo -n $NS --no-headers | awk '{print \$2, \$3, \$4}'"
BEFORE=$(eval "$POD_UIDS")
run kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo -o custom-columns=NAME:.metadata.name,UID:.metadata.uid
# Anyone who may write an ImoocPod may write any annotation: lesson 02 knows no template.
show "sed 's/name: demo/name: odd/; s/replicas: 3/replicas: 1/' ${OLD#"$ROOT"/}/config/samples/apps_v1_imoocpod.yaml | kubectl apply -n $NS -f -"
sed 's/name: demo/name: odd/; s/replicas: 3/replicas: 1/' "$OLD/config/samples/apps_v1_imoocpod.yaml" |
  kubectl apply -n $NS -f - 2>&1 | sed 's/^/    /'
run kubectl annotate $V1 odd -n $NS 'apps.workshop.dev/v2-template={"spec":'
stop_manager

step "The upgrade: the v2 CRD, its conversion webhook, lesson 13's manager"
show "kubectl apply --server-side --force-conflicts -f ${STAGE_DIR#"$ROOT"/}/config/crd/bases"
manager_install_crds "$STAGE_DIR"
show "scripts/tools/localwebhook -crds ${STAGE_DIR#"$ROOT"/}/config/crd/bases ... (spec.conversion: Webhook, https://$MANAGER_HOST:$WEBHOOK_PORT/convert)"
manager_install_webhooks "$STAGE_DIR" "$MANAGER_HOST" "$WEBHOOK_PORT" "$WEBHOOK_CERT_DIR"
start_manager
expect "the CRD serves v1 and v2, and stores v2" "v1:true:false v2:true:true" \
  "kubectl get crd $CRD -o jsonpath='{range .spec.versions[*]}{.name}:{.served}:{.storage} {end}' | xargs"
expect "its conversions go to the manager's webhook" "Webhook https://$MANAGER_HOST:$WEBHOOK_PORT/convert" \
  "kubectl get crd $CRD -o jsonpath='{.spec.conversion.strategy} {.spec.conversion.webhook.clientConfig.url}'"
expect "status.storedVersions: v1 (the ImoocPod written before) and v2" '["v1","v2"]' "$STORED"
run kubectl get crd $CRD -o jsonpath='{.spec.versions[*].name} stored: {.status.storedVersions}{"\n"}'

step "The ImoocPod written in v1 reads in both versions"
expect "v1: spec.image" "registry.k8s.io/pause:3.10" "kubectl get $V1 demo -n $NS -o jsonpath='{.spec.image}'"
expect "v2: the image is the template's one container, app" "app=registry.k8s.io/pause:3.10" \
  "kubectl get $V2 demo -n $NS -o jsonpath='{range .spec.template.spec.containers[*]}{.name}={.image}{end}'"
run kubectl get $V2 demo -n $NS -o jsonpath='{.apiVersion} {.spec}{"\n"}'

step "An ImoocPod stored in v1 whose annotation holds no template: readable, reported, deletable"
expect "every ImoocPod lists in v2: the conversion ignores the annotation" "demo odd" \
  "kubectl get $V2 -n $NS -o jsonpath='{.items[*].metadata.name}'" \
  "ConvertTo should not fail on what a user stored: restoreTemplate ignores an annotation ParseTemplateAnnotation refuses"
expect "the controller says so in the condition TemplateAnnotationIgnored" "True InvalidTemplate" \
  "kubectl get $V2 odd -n $NS -o jsonpath='{range .status.conditions[?(@.type==\"TemplateAnnotationIgnored\")]}{.status} {.reason}{end}'"
run kubectl get $V2 odd -n $NS -o jsonpath='{.status.conditions[?(@.type=="TemplateAnnotationIgnored")].message}{"\n"}'
run kubectl delete $V2 odd -n $NS --wait=true

step "The upgrade recreated no pod"
expect "the same 3 pods, by UID, as before the upgrade" "$BEFORE" "$POD_UIDS" \
  "lesson 13's controller sees the pods of the v1 ImoocPod as its own: same label, same owner"
expect "DESIRED CURRENT READY: 3 3 3" "3 3 3" "$COLUMNS"
expect "their owner references name the ImoocPod in v2, which stays served when v1 no longer is" \
  "apps.workshop.dev/v2 apps.workshop.dev/v2 apps.workshop.dev/v2" \
  "kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo -o jsonpath='{.items[*].metadata.ownerReferences[*].apiVersion}'" \
  "lesson 02 made them naming apps.workshop.dev/v1: the controller moves the reference to v2 (ownInV2)"

step "A v2 client gives the template a label, which v1 cannot say"
run kubectl patch $V2 demo -n $NS --type=merge -p '{"spec":{"template":{"metadata":{"labels":{"tier":"web"}}}}}'
expect "read in v1, the template waits in the apps.workshop.dev/v2-template annotation" \
  '{"metadata":{"labels":{"tier":"web"}},"spec":{"containers":[{"name":"app","image":"registry.k8s.io/pause:3.10","resources":{}}]}}' \
  "kubectl get $V1 demo -n $NS -o jsonpath='{.metadata.annotations.apps\.workshop\.dev/v2-template}'"
run kubectl get $V1 demo -n $NS -o jsonpath='{.metadata.annotations}{"\n"}'
expect "read in v2, there is no annotation" "" \
  "kubectl get $V2 demo -n $NS -o jsonpath='{.metadata.annotations.apps\.workshop\.dev/v2-template}'"

step "A v1 client cannot write through the annotation what v2 refuses"
expect_refused "v1's validating webhook refuses a template with a container without an image, naming the field" \
  "kubectl annotate $V1 demo -n $NS --overwrite 'apps.workshop.dev/v2-template={\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"x\"},{\"name\":\"sidecar\"}]}}'" \
  "metadata.annotations[apps.workshop.dev/v2-template].spec.containers[1].image: Required value"

step "A v1 client reads the ImoocPod, changes its image and writes it all back"
show "kubectl get $V1 demo -n $NS -o yaml | sed 's|image: registry.k8s.io/pause:3.10|image: registry.k8s.io/pause:3.9|' | kubectl replace -f -"
kubectl get $V1 demo -n $NS -o yaml | sed 's|image: registry.k8s.io/pause:3.10|image: registry.k8s.io/pause:3.9|' |
  kubectl replace -f - 2>&1 | sed 's/^/    /'
expect "v2: the new image, and the label v1 never saw" "tier=web app=registry.k8s.io/pause:3.9" \
  "kubectl get $V2 demo -n $NS -o jsonpath='{range .spec.template.metadata.labels}tier={.tier}{end} {range .spec.template.spec.containers[*]}{.name}={.image}{end}'"
run kubectl scale $V1 demo -n $NS --replicas=4
expect "scaled through v1: 4 pods, the new one from the template (tier=web)" "4 1" \
  "echo \$($ACTIVE) \$(kubectl get pods -n $NS -l tier=web --no-headers 2>/dev/null | grep -cv Terminating)"

step "Storage migration: rewrite every ImoocPod in v2, then forget v1"
# rewrite_all writes every ImoocPod back unchanged, which stores it in the storage
# version, and does it again while a write meets a Conflict (the object changed after
# the read: here the controller's status patches): kube-storage-version-migrator reads
# again and writes again such an object too.
rewrite_all() {
  local out status try
  for try in 1 2 3 4 5; do
    status=0
    out=$(kubectl get $V2 -A -o json | kubectl replace -f - 2>&1) || status=$?
    if ((status == 0 || try == 5)) || [[ $out != *"(Conflict)"* ]]; then
      break
    fi
    echo "    a write met a Conflict: reading and writing again"
  done
  printf '%s\n' "$out" | sed 's/^/    /'
  return "$status"
}
show "kubectl get $V2 -A -o json | kubectl replace -f -    # again on a Conflict"
rewrite_all
run kubectl patch crd $CRD --subresource=status --type=merge -p '{"status":{"storedVersions":["v2"]}}'
expect "status.storedVersions: v2 alone; a later release may stop serving v1" '["v2"]' "$STORED"
run kubectl get crd $CRD -o jsonpath='{.spec.versions[*].name} stored: {.status.storedVersions}{"\n"}'

step "What breaks: the manager down, its conversion webhook still on the CRD"
stop_manager
expect_refused "a read in v1 fails: the API server cannot convert" "kubectl get $V1 demo -n $NS" \
  "conversion webhook for apps.workshop.dev/v2, Kind=ImoocPod failed"
expect "a read in v2, the stored version, needs no conversion" "imoocpod.apps.workshop.dev/demo" \
  "kubectl get $V2 demo -n $NS -o name"
start_manager
expect "the manager back: v1 reads again" "4" "kubectl get $V1 demo -n $NS -o jsonpath='{.spec.replicas}'"

step "Leaving the cluster as lesson 02 left it: its v1-only CRD"
# status.storedVersions says ["v2"]: the API server refuses the CRD of lessons 01, 02 and
# 12, which has no v2 (make lesson-1 would stop there). Nothing is stored in v2 once the
# walkthrough's ImoocPods are gone (it deleted every other at its start): then the CRD
# can go, and lesson 02's take its place.
run kubectl delete namespace $NS --wait=true --timeout=60s
LEFT="kubectl get $V2 -A --no-headers 2>/dev/null | wc -l | xargs"
expect "no ImoocPod is left in the cluster" "0" "$LEFT" \
  "an ImoocPod made elsewhere during the walkthrough: the CRD stays; see shared/TROUBLESHOOTING.md, entry 20"
if [[ $(eval "$LEFT") == 0 ]]; then
  run kubectl delete crd $CRD --wait=true
  show "kubectl apply --server-side --force-conflicts -f ${OLD#"$ROOT"/}/config/crd/bases"
  manager_install_crds "$OLD"
fi
expect "the CRD is lesson 02's: v1 alone, stored in v1" 'v1 stored: ["v1"]' \
  "kubectl get crd $CRD -o jsonpath='{.spec.versions[*].name} stored: {.status.storedVersions}'"

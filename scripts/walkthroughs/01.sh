# shellcheck shell=bash
# Stage 01: the ImoocPod replica controller. Sourced by scripts/run-stage.sh, which runs
# the manager and defines STAGE_DIR and the walkthrough vocabulary.
NS=workshop-01
PODS="kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo --no-headers 2>/dev/null"
ACTIVE="$PODS | grep -cv Terminating"
RUNNING="kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo --field-selector=status.phase=Running --no-headers 2>/dev/null | grep -cv Terminating"

# A run that stopped while a pod was held by the finalizer below leaves a namespace that
# would never go: remove_leftovers lets the pod go first.
remove_leftovers namespace/$NS

step "Create an ImoocPod asking for 3 pods"
fresh_namespace $NS
run kubectl apply -n $NS -f "$STAGE_DIR/config/samples/apps_v1_imoocpod.yaml"
expect "the controller created 3 pods" 3 "$ACTIVE" \
  "no pods? read the manager's log; few pods? check how Reconcile compares len(active) with spec.replicas"
expect "the scheduler placed them and kwok started them: 3 Running" 3 "$RUNNING"
expect "every pod is controlled by the ImoocPod demo" "ImoocPod/demo ImoocPod/demo ImoocPod/demo" \
  "kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo -o jsonpath='{range .items[*]}{.metadata.ownerReferences[?(@.controller==true)].kind}/{.metadata.ownerReferences[?(@.controller==true)].name} {end}' | xargs" \
  "newPod should call controllerutil.SetControllerReference"
run kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo -o wide

step "Scale up to 10 in one pass"
run kubectl patch imoocpod demo -n $NS --type=merge -p '{"spec":{"replicas":10}}'
expect "10 pods" 10 "$ACTIVE" "create every missing pod in one pass, not one per reconcile"

step "Delete a pod behind the controller's back, and hold it in Terminating"
# A kubelet keeps a deleted pod for its grace period (30 s by default); kwok removes it at
# once. A finalizer of our own holds it in Terminating until we remove the finalizer, so
# that the check below sees whether the controller counts a terminating pod.
victim=$(kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo -o jsonpath='{.items[0].metadata.name}')
run kubectl patch pod -n $NS "$victim" --type=merge -p '{"metadata":{"finalizers":["walkthrough.workshop.dev/hold"]}}'
run kubectl delete pod -n $NS "$victim" --wait=false
expect "$victim is Terminating, held by the finalizer" "Terminating" \
  "kubectl get pod -n $NS $victim --no-headers | awk '{print \$3}'"
expect "the controller replaced it while it terminates: 10 other pods" 10 "$ACTIVE" \
  "activePods must skip pods that are being deleted (deletionTimestamp set), so that the controller creates a replacement"
run kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo
run kubectl patch pod -n $NS "$victim" --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]'
expect "$victim is gone once the finalizer is removed, and 10 pods remain" "0 10" \
  "echo \$($PODS | grep -c '^$victim ') \$($ACTIVE)"

step "Scale down to 2"
run kubectl patch imoocpod demo -n $NS --type=merge -p '{"spec":{"replicas":2}}'
expect "2 pods" 2 "$ACTIVE" "delete the surplus: podsToDelete picks which"

step "The API server refuses bad input (the CRD's validation, before any controller)"
expect_refused "replicas: -1 is refused, naming the field" \
  "kubectl patch imoocpod demo -n $NS --type=merge -p '{\"spec\":{\"replicas\":-1}}'" \
  "spec.replicas" "add +kubebuilder:validation:Minimum=0 to Replicas and regenerate"
expect_refused "replicas: \"three\" is refused" \
  "kubectl patch imoocpod demo -n $NS --type=merge -p '{\"spec\":{\"replicas\":\"three\"}}'" \
  "spec.replicas"
expect_refused "an empty image is refused" \
  "kubectl patch imoocpod demo -n $NS --type=merge -p '{\"spec\":{\"image\":\"\"}}'" \
  "spec.image" "add +kubebuilder:validation:MinLength=1 to Image"

expect_collected ImoocPod imoocpod
expect_clean_log $NS

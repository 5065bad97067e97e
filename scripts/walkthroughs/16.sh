# shellcheck shell=bash
# Stage 16: MyDaemonSet without a webhook. Sourced by scripts/run-stage.sh, which has
# installed the stage's CRD and webhook configurations and runs the manager, and defines
# STAGE_DIR, start_manager, stop_manager, manager_errors and the walkthrough vocabulary
# (step, run, expect). It removes its policies, their parameters and its namespace at the
# end: a policy left on pods would judge the next lessons' pods.
NS=workshop-16
POLICIES=$STAGE_DIR/config/policies
SAMPLES=$STAGE_DIR/config/samples
# The namespace of the policy's parameters, config/default's: made here if missing, and
# removed at the end only then.
PARAMS_NS=mydaemonset-system
POLICY_OBJECTS="validatingadmissionpolicy/mydaemonset-reserved-label validatingadmissionpolicybinding/mydaemonset-reserved-label mutatingadmissionpolicy/mydaemonset-pull-policy mutatingadmissionpolicybinding/mydaemonset-pull-policy"
IMAGE_AND_POLICY="kubectl get mds -n $NS -o jsonpath='{range .items[*]}{.metadata.name} {.spec.imagePullPolicy}{\"\\n\"}{end}' | LC_ALL=C sort | xargs"

# shellcheck disable=SC2086 # one object a word
remove_leftovers namespace/$NS configmap/$PARAMS_NS/mydaemonset-reserved-label $POLICY_OBJECTS
made_params_ns=
if ! kubectl get namespace $PARAMS_NS >/dev/null 2>&1; then
  made_params_ns=yes
  kubectl create namespace $PARAMS_NS >/dev/null
fi

# all_nodes prints the names of the cluster's nodes, sorted, on one line.
all_nodes() {
  kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | LC_ALL=C sort | xargs
}

step "The policies are API objects: an administrator applies them"
run kubectl apply -f "$POLICIES/reserved_label_params.yaml" -f "$POLICIES/reserved_label.yaml" -f "$POLICIES/pull_policy.yaml"
# On this cluster the manager runs on this machine with the administrator's credentials,
# not as its service account: the parameters name the user it runs as. A cluster that
# runs it otherwise changes the same line, and no rule.
me=$(kubectl auth whoami -o jsonpath='{.status.userInfo.username}')
run kubectl patch configmap mydaemonset-reserved-label -n $PARAMS_NS --type=merge -p "{\"data\":{\"manager\":\"$me\"}}"
run kubectl get validatingadmissionpolicies,validatingadmissionpolicybindings,mutatingadmissionpolicies,mutatingadmissionpolicybindings
fresh_namespace $NS
run kubectl label namespace $NS apps.workshop.dev/reserved-labels=enforced
# jane may create pods in the namespace: RBAC lets her, the policy decides about the label.
run kubectl create rolebinding jane-edit -n $NS --clusterrole=edit --user=jane

step "The manager still labels its own pods"
run kubectl apply -n $NS -f "$SAMPLES/apps_v1_mydaemonset.yaml"
expect "every node runs one demo pod, labelled by the manager" "$(all_nodes)" \
  "kubectl get pods -n $NS -l apps.workshop.dev/mydaemonset=demo -o jsonpath='{range .items[*]}{.spec.nodeName}{\"\\n\"}{end}' | LC_ALL=C sort | xargs" \
  "none? the manager's creates may be denied: read its log, and the policy's byManager (the ConfigMap's manager is $me)"

step "Anyone else is denied the label, whatever RBAC allows"
# The API server learns of a new policy, its binding, its parameters and a namespace's
# label through its own watches: a moment after they are written, seconds on a loaded
# machine, during which pods are admitted as before. A server-side dry run (nothing
# stored) shows when the policy is in force.
expect "the API server enforces the policy in $NS: a dry run of jane's labelled pod is denied" "1" \
  "kubectl run probe -n $NS --as=jane --dry-run=server --image=registry.k8s.io/pause:3.10 --labels=apps.workshop.dev/mydaemonset=demo 2>&1 | grep -c 'denied request'" \
  "admitted? the binding should deny (validationActions: [Deny]) in the namespaces labelled apps.workshop.dev/reserved-labels=enforced"
expect_refused "jane's pod labelled as demo's is denied by the policy" \
  "kubectl run forged -n $NS --as=jane --image=registry.k8s.io/pause:3.10 --labels=apps.workshop.dev/mydaemonset=demo" \
  "ValidatingAdmissionPolicy 'mydaemonset-reserved-label' with binding 'mydaemonset-reserved-label' denied request" \
  "admitted? the binding should deny (validationActions: [Deny]) in the namespaces labelled apps.workshop.dev/reserved-labels=enforced"
run kubectl run plain -n $NS --as=jane --image=registry.k8s.io/pause:3.10 --labels=app=web
expect_refused "jane may not take the label off demo's pod either" \
  "kubectl label -n $NS --as=jane \$(kubectl get pods -n $NS -l apps.workshop.dev/mydaemonset=demo -o name | head -n 1) apps.workshop.dev/mydaemonset-" \
  "may set, change or remove this label"

step "With the manager down, its webhooks refuse every MyDaemonSet write"
stop_manager
expect_refused "the API server cannot call the webhook (failurePolicy: Fail)" \
  "kubectl create -n $NS -f '$SAMPLES/latest_mydaemonset.yaml'" \
  "failed calling webhook"

step "Without the webhooks, the API server defaults and refuses by itself"
# What a cluster that replaced the webhooks by the policies has: no configuration that
# calls the manager.
run kubectl delete mutatingwebhookconfiguration mutating-webhook-configuration
run kubectl delete validatingwebhookconfiguration validating-webhook-configuration
run kubectl create -n $NS -f "$SAMPLES/latest_mydaemonset.yaml"
expect "the policy set latest's imagePullPolicy to Always, and demo keeps IfNotPresent" \
  "demo IfNotPresent latest Always" "$IMAGE_AND_POLICY" \
  "no policy? the MutatingAdmissionPolicy's mutation should set it where it is missing (matchConditions)"
expect_refused "the CRD's CEL rule refuses a toleration value too long for a label" \
  "kubectl patch mds latest -n $NS --type=merge -p '{\"spec\":{\"tolerations\":[{\"key\":\"disk\",\"operator\":\"Equal\",\"value\":\"$(printf 'v%.0s' $(seq 64))\"}]}}'" \
  "a toleration's value must be a label value"
run kubectl patch mds latest -n $NS --type=merge -p '{"spec":{"imagePullPolicy":null,"image":"registry.k8s.io/pause:3.10"}}'
expect "a removed pull policy is chosen again, from the new image: the policy runs before the transition rule" \
  "demo IfNotPresent latest IfNotPresent" "$IMAGE_AND_POLICY"
expect_refused "jane's forged pod is still denied" \
  "kubectl run forged -n $NS --as=jane --image=registry.k8s.io/pause:3.10 --labels=apps.workshop.dev/mydaemonset=demo" \
  "denied request"

step "Clean up: the policies judge every namespace's pods, so they go"
# shellcheck disable=SC2086 # one object a word
run kubectl delete $POLICY_OBJECTS
run kubectl delete configmap mydaemonset-reserved-label -n $PARAMS_NS
[[ -z $made_params_ns ]] || kubectl delete namespace $PARAMS_NS --wait=false >/dev/null
kubectl delete namespace $NS --wait=false >/dev/null

# shellcheck shell=bash
# Stage 15: a ConfigMapCopy copies one ConfigMap into the namespaces its selector picks.
# Sourced by scripts/run-stage.sh, which has installed the stage's CRD and webhook
# configurations and runs the manager, and defines STAGE_DIR, start_manager,
# stop_manager, manager_errors and the walkthrough vocabulary (step, run, expect). Its
# namespaces and its ConfigMapCopy, cluster-scoped, have names of their own and are gone at
# the end.
SRC=workshop-15-source A=workshop-15-a B=workshop-15-b COPY=workshop-15
LABEL=copies.workshop.dev/walkthrough
MANIFEST=$STAGE_CACHE/configmapcopy-15.yaml

# copy_of NS prints the greeting of the copy in namespace NS, or nothing.
copy_of() { kubectl -n "$1" get configmap settings --ignore-not-found -o jsonpath='{.data.greeting}'; }
ready() { kubectl get configmapcopy "$COPY" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}'; }

remove_leftovers configmapcopy/$COPY namespace/$SRC namespace/$A namespace/$B

step "A source ConfigMap in $SRC; $A labelled $LABEL=yes, $B not"
run kubectl create namespace "$SRC"
run kubectl create namespace "$A"
run kubectl create namespace "$B"
run kubectl label namespace "$A" "$LABEL=yes"
run kubectl -n "$SRC" create configmap settings --from-literal=greeting=hello

step "Apply the ConfigMapCopy: its webhook names the copies after the source"
cat >"$MANIFEST" <<YAML
apiVersion: copies.workshop.dev/v1
kind: ConfigMapCopy
metadata:
  name: $COPY
spec:
  source: {namespace: $SRC, name: settings}
  namespaceSelector:
    matchLabels: {$LABEL: "yes"}
YAML
run kubectl apply -f "$MANIFEST"
expect "spec.targetName is the source's name (the defaulting webhook)" settings \
  "kubectl get configmapcopy $COPY -o jsonpath='{.spec.targetName}'"
expect "$A holds a copy" hello "copy_of $A" "list the namespaces the selector picks and create the copy in each (R4)"
expect "$B holds none" "" "copy_of $B"
expect "Ready is True" True ready

step "Label $B too, and change the source"
run kubectl label namespace "$B" "$LABEL=yes"
run kubectl -n "$SRC" patch configmap settings --type=merge -p '{"data":{"greeting":"bonjour"}}'
expect "$A's copy follows the source" bonjour "copy_of $A" "watch the source ConfigMap (R5)"
expect "$B holds a copy too" bonjour "copy_of $B" "watch the namespaces (R7)"

step "Delete the ConfigMapCopy: its finalizer holds it until the copies are gone"
run kubectl delete configmapcopy "$COPY" --wait=true --timeout=30s
expect "$A's copy is gone" "" "copy_of $A" "delete every copy before removing the finalizer (R8)"
expect "$B's copy is gone" "" "copy_of $B"
expect "the manager logged no error" 0 manager_errors

run kubectl delete namespace "$SRC" "$A" "$B" --wait=false

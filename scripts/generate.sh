#!/usr/bin/env bash
# Regenerates what controller-gen derives from a module's Go code: DeepCopy methods
# (api/**/zz_generated.deepcopy.go), CRDs (config/crd/bases), the manager's RBAC role
# (config/rbac/role.yaml), where there are webhooks, their configuration
# (config/webhook/manifests.yaml) and, where an API package asks for them
# (+kubebuilder:ac:generate=true), apply configurations (api/**/applyconfiguration):
# `workshop generated-files` (scripts/tools/internal/stage) lists them. What
# was there is removed first, so that a CRD or webhook the code no longer has goes too.
# Never edit those files by hand.
#
# Usage: scripts/generate.sh MODULE_DIR...
source "$(dirname "$0")/lib/common.sh"

(($# > 0)) || die "usage: $0 MODULE_DIR..."
# controller-gen copies into a CRD the descriptions of the Kubernetes types it embeds:
# below a SidecarSet's spec.containers and spec.volumes, half of its CRD, all of them in
# `kubectl explain pod.spec.containers`. crddesc drops the descriptions below these
# fields (CRD:FIELD), keeping the fields' own and every validation; controller-gen's
# crd:maxDescLen=0 would drop the CRD's own descriptions too.
embedded=(
  sidecarsets.sidecars.workshop.dev:spec.containers
  sidecarsets.sidecars.workshop.dev:spec.volumes
  # v2 of ImoocPod (lesson 13 on) has it; the v1-only CRD of lessons 01-02 does not.
  imoocpods.apps.workshop.dev:spec.template.spec.containers?
)
crddesc=$(tool_path crddesc)
WORKSHOP_BIN=${WORKSHOP_BIN:-$(tool_path workshop)}
for dir in "$@"; do
  [[ -f "$dir/go.mod" ]] || die "$dir is not a module (no go.mod)"
  outputs=$(workshop generated-files "$dir")
  # shellcheck disable=SC2086 # one path a word: the outputs' paths have no spaces
  (cd "$dir" && rm -f $outputs)
  (
    cd "$dir"
    # Each module resolves on its own (its go.mod replaces shared), as `go mod tidy` and
    # a learner's editor see it. The controller may use the apply configurations: they
    # come first, on their own, since controller-gen loads every package of the module
    # for the rest.
    if grep -rqs -- '+kubebuilder:ac:generate=true' api; then
      GOWORK=off "$CACHE/bin/current/controller-gen" applyconfiguration paths=./api/...
    fi
    # A kubebuilder scaffold (the capstone's) heads its generated code with its
    # boilerplate, as its own make generate does.
    object=object
    [[ ! -f hack/boilerplate.go.txt ]] || object=object:headerFile=hack/boilerplate.go.txt
    GOWORK=off "$CACHE/bin/current/controller-gen" \
      "$object" paths=./api/... \
      crd rbac:roleName=manager-role webhook paths=./... \
      output:crd:artifacts:config=config/crd/bases \
      output:rbac:artifacts:config=config/rbac \
      output:webhook:artifacts:config=config/webhook
    "$crddesc" config/crd/bases "${embedded[@]}"
    # controller-gen makes its output folders even when it writes nothing there (a module
    # without webhooks), and a stage without apply configurations keeps the folders of the
    # track's, emptied above; git keeps no empty folder, so a clean clone would differ.
    find config api -depth -type d -empty -delete
  )
done

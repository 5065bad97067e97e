#!/usr/bin/env bash
# Keeps every go.mod on the versions in scripts/versions.env.
#
# Usage:
#   scripts/pins.sh check    fail, naming the module and the dependency, on any drift
#   scripts/pins.sh apply    write the pinned versions into every go.mod
source "$(dirname "$0")/lib/common.sh"

# The pins each kind of module must follow, as "module-path version" lines.
library_pins() {
  local m
  for m in api apimachinery client-go apiextensions-apiserver; do echo "k8s.io/$m $K8S_LIBS_VERSION"; done
  echo "sigs.k8s.io/controller-runtime $CONTROLLER_RUNTIME_VERSION"
  echo "github.com/go-logr/logr $LOGR_VERSION"
  echo "github.com/onsi/gomega $GOMEGA_VERSION"
}
tool_pins() {
  echo "sigs.k8s.io/controller-tools $CONTROLLER_TOOLS_VERSION"
  echo "sigs.k8s.io/kustomize/kustomize/v5 $KUSTOMIZE_VERSION"
  echo "sigs.k8s.io/kind $KIND_VERSION"
  echo "sigs.k8s.io/kwok $KWOK_VERSION"
}
lint_pins() { echo "github.com/golangci/golangci-lint/v2 $GOLANGCI_LINT_VERSION"; }
kubebuilder_pins() { echo "sigs.k8s.io/kubebuilder/v4 $KUBEBUILDER_VERSION"; }
helm_pins() { echo "helm.sh/helm/v4 $HELM_VERSION"; }
delve_pins() { echo "github.com/go-delve/delve $DELVE_VERSION"; }
controlplane_pins() {
  echo "k8s.io/kubernetes $KUBERNETES_VERSION"
  echo "go.etcd.io/etcd/server/v3 $ETCD_VERSION"
}

# required GOMOD PATH prints the version GOMOD requires of PATH, or nothing.
required() {
  awk -v p="$2" '$1 == "require" && $2 == p {print $3} $1 == p && $2 ~ /^v/ {print $2}' "$1" | head -n 1
}

# pins_for GOMOD prints the pins that apply to one go.mod.
pins_for() {
  case $1 in
    # The tools module also builds the workshop's own tools, which use the libraries.
    */scripts/tools/go.mod) tool_pins; library_pins ;;
    */scripts/controlplane/go.mod) controlplane_pins ;;
    */scripts/lint/go.mod) lint_pins ;;
    # kubebuilder builds on its own requirements, as `go install` would: no library pin.
    */scripts/kubebuilder/go.mod) kubebuilder_pins ;;
    */scripts/helm/go.mod) helm_pins ;;
    # Delve, like kubebuilder, builds on its own requirements.
    */scripts/delve/go.mod) delve_pins ;;
    *) library_pins ;;
  esac
}

modules() { ls "$ROOT"/{shared,tracks/*,lessons/*,solutions/*,scripts/tools,scripts/controlplane,scripts/lint,scripts/kubebuilder,scripts/helm,scripts/delve}/go.mod 2>/dev/null; }

check() {
  local gomod path want got bad=0
  for gomod in $(modules); do
    got=$(awk '$1 == "go" {print $2}' "$gomod")
    if [[ $got != "$GO_VERSION" ]]; then
      warn "${gomod#"$ROOT"/}: go $got, pinned go $GO_VERSION"
      bad=1
    fi
    while read -r path want; do
      got=$(required "$gomod" "$path")
      if [[ -n $got && $got != "$want" ]]; then
        warn "${gomod#"$ROOT"/}: $path $got, pinned $want (scripts/versions.env)"
        bad=1
      fi
    done < <(pins_for "$gomod")
  done
  # The control plane's staging modules must all follow the libraries' version.
  if grep -E '^[[:space:]]+k8s\.io/[a-z-]+ => k8s\.io/[a-z-]+ v' "$ROOT/scripts/controlplane/go.mod" | grep -vq " $K8S_LIBS_VERSION\$"; then
    warn "scripts/controlplane/go.mod: a k8s.io replace is not at $K8S_LIBS_VERSION"
    bad=1
  fi
  ((bad == 0)) || die "go.mod files drift from scripts/versions.env: run \`make pins\`, then \`go mod tidy\` in each module"
  say "Every go.mod follows scripts/versions.env"
}

apply() {
  local gomod path want
  for gomod in $(modules); do
    (
      cd "$(dirname "$gomod")"
      GOWORK=off go mod edit -go="$GO_VERSION"
      while read -r path want; do
        # A module that does not use a pinned library is left without it.
        if [[ -n $(required go.mod "$path") ]]; then
          GOWORK=off go mod edit -require="$path@$want"
        fi
      done < <(pins_for "$gomod")
    )
  done
  # Through a new file: a Mac's sed -i takes the next argument as a backup suffix.
  local controlplane="$ROOT/scripts/controlplane/go.mod"
  sed -E "s#^([[:space:]]+k8s\.io/[a-z-]+ => k8s\.io/[a-z-]+) v.*#\1 $K8S_LIBS_VERSION#" "$controlplane" >"$controlplane.new"
  mv "$controlplane.new" "$controlplane"
  say "Pins written; run \`go mod tidy\` in each module and commit"
}

case ${1:-} in
  check) check ;;
  apply) apply ;;
  *) die "usage: $0 check|apply" ;;
esac

# The workshop's commands. `make help` lists them; every one is a thin wrapper around a
# script in scripts/ or a command of scripts/tools/workshop, which says more about what
# it does.

include scripts/versions.env

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
BIN := $(CURDIR)/.cache/bin/current
NODES ?= 3
# FROM=solution makes diff-N show the solution before lesson N in its track (02 for 13)
# against lesson N: what the lesson adds.
FROM ?=
# The workshop command (scripts/tools/workshop) behind the learning loop's targets: go
# build does nothing when its code did not change.
WORKSHOP = GOWORK=off go build -C scripts/tools -trimpath -o "$(CURDIR)/.cache/tools/workshop" ./workshop && "$(CURDIR)/.cache/tools/workshop" -root "$(CURDIR)"

.DEFAULT_GOAL := help

##@ Start here

.PHONY: help
help: ## List the commands.
	@awk 'BEGIN {FS = ":.*## "} \
	  /^##@/ {printf "\n\033[1m%s\033[0m\n", substr($$0, 5)} \
	  /^[a-zA-Z0-9%_-]+:.*## / {name = $$1; gsub("%", "N", name); printf "  \033[36m%-18s\033[0m %s\n", name, $$2}' \
	  $(MAKEFILE_LIST)

# No dependency on binaries: the doctor must work before anything is built; it needs Go.
.PHONY: doctor
doctor: ## Name the platform; check Go, disk space, binaries, ports, kube context and Docker; print the fix for each problem.
	@command -v go >/dev/null || { echo "make doctor needs Go $(GO_VERSION) or newer and finds no go on PATH: https://go.dev/dl/ (on a Mac with Homebrew: brew install go)" >&2; exit 1; }; $(WORKSHOP) doctor

.PHONY: binaries
binaries: ## Build the control plane and tools from source (about 20 minutes on a fresh 2-core machine, once).
	@scripts/build-binaries.sh

.PHONY: test-binaries
test-binaries: ## Build only what check-N needs: etcd, kube-apiserver, controller-gen (about 10 minutes, once).
	@scripts/build-binaries.sh tests

.PHONY: env
env: ## Print the exports that put the workshop kubectl and cluster in your shell (eval them).
	@echo "export PATH=\"$(BIN):\$$PATH\" KUBECONFIG=\"$$(scripts/cluster.sh kubeconfig)\""

# The folder of test-binaries, for a kubebuilder scaffold's tests: KUBEBUILDER_ASSETS
# there makes envtest start them instead of downloading its own (shared/TROUBLESHOOTING.md,
# entry 21). Only the path goes to stdout: build-binaries.sh speaks on stderr.
.PHONY: envtest-path
envtest-path: test-binaries ## Print the folder of etcd and kube-apiserver, for KUBEBUILDER_ASSETS outside the workshop.
	@echo "$(BIN)"

##@ Learning loop (N is the lesson number: 1, 2, ...)

lesson-%: binaries ## Run lesson N's controller (your code) on a cluster and walk through what it should do.
	@scripts/run-stage.sh lessons $*

solution-%: binaries ## The same walkthrough with solution N's controller.
	@scripts/run-stage.sh solutions $*

check-%: test-binaries ## Run lesson N's tests against your code: a checklist of its tasks, TODO(1) to TODO(n).
	@$(WORKSHOP) check $*

hint-%: ## Show a hint for task T of lesson N (make hint-1 T=3); again shows the next. No T: the first task not done.
	@$(WORKSHOP) hint $* $(T)

watch-%: test-binaries ## Run check-N again each time you save a file of lesson N (Ctrl-C stops).
	@$(WORKSHOP) watch $*

.PHONY: progress
progress: ## Every lesson: not started, k of n tasks done at your last check, or done; and the next step.
	@$(WORKSHOP) progress

run-%: binaries ## Run lesson N's manager in the foreground on the cluster, to try with kubectl (Ctrl-C stops).
	@scripts/run-stage.sh lessons $* run

debug-%: binaries ## Run lesson N's manager under Delve on 127.0.0.1:2345 (DLV_PORT), for VS Code or GoLand to attach (lesson 17).
	@DLV_PORT=$(or $(DLV_PORT),2345) scripts/run-stage.sh lessons $* debug

install-%: binaries ## Install lesson N's CRDs on the cluster (regenerated from your API types).
	@scripts/crds.sh install $*

undebug-%: binaries ## Run lesson N's manager under Delve on 127.0.0.1:2345 (DLV_PORT), for VS Code or GoLand to attach (lesson 17).
	@DLV_PORT=$(or $(DLV_PORT),2345) scripts/run-stage.sh lessons $* debug

install-%: binaries ## Delete lesson N's CRDs and so every object of their kinds; lists them and asks (CONFIRM=yes).
	@scripts/crds.sh uninstall $*

diff-%: ## Show lesson N against solution N (FROM=solution: the solution before it in its track against lesson N).
	@$(WORKSHOP) diff $* $(FROM)

deploy-%: binaries ## Deploy lesson N's operator (CODE=solution: solution N's) into the current cluster: image on kind, config/default, CRDs apart.
	@scripts/deploy.sh deploy $(if $(filter solution%,$(CODE)),solutions,lessons) $*

undeploy-%: ## Remove lesson N's operator; its CRDs and every custom resource stay.
	@scripts/deploy.sh undeploy $(if $(filter solution%,$(CODE)),solutions,lessons) $*

reset-%: test-binaries ## Put lesson N back to its starting state (your changes are lost).
	@$(WORKSHOP) reset $*

##@ Clusters

.PHONY: cluster-up
cluster-up: binaries ## Start the embedded cluster: real control plane, NODES simulated nodes (3).
	@scripts/cluster.sh up $(NODES)

.PHONY: cluster-down
cluster-down: ## Delete the embedded cluster.
	@scripts/cluster.sh down

.PHONY: cluster-nodes
cluster-nodes: ## Scale the embedded cluster to NODES nodes.
	@scripts/cluster.sh nodes $(NODES)

.PHONY: kind-up
kind-up: binaries ## Start a kind cluster (needs Docker): one control plane, two workers.
	@scripts/kind.sh up

.PHONY: kind-down
kind-down: ## Delete the kind cluster.
	@scripts/kind.sh down

##@ Maintainers

.PHONY: test
test: binaries ## Everything green: unit, envtest and end-to-end tests; each lesson's tasks turn their own tests green, one at a time.
	@scripts/test.sh

.PHONY: verify
verify: binaries ## Generated code, lessons and version pins are up to date; everything builds for macOS.
	@scripts/verify.sh

.PHONY: generate
generate: binaries ## Regenerate everything derived from tracks/: every solution and lesson, their CRDs and RBAC.
	@scripts/lessons.sh write

.PHONY: new-lesson
new-lesson: ## Scaffold a lesson: TRACK=nodepool N=15 FOLDER=15-name TITLE="..." (manifest block, page, walkthrough, go.work).
	@scripts/lessons.sh new -track "$(TRACK)" -number "$(or $(N),0)" -folder "$(FOLDER)" -title "$(TITLE)"

.PHONY: words
words: ## The prose words of each lesson page (main path, going further) and of all, against their budgets.
	@scripts/lessons.sh words

.PHONY: pins
pins: ## Carry scripts/versions.env into every go.mod.
	@scripts/pins.sh apply

.PHONY: faults
faults: binaries ## Kill managers mid-work, restart kube-apiserver and etcd under a NodePool: nothing exceeds spec, nothing is lost.
	@scripts/faults.sh all

.PHONY: helm-chart
helm-chart: binaries ## The NodePool Helm chart (dist/chart of solution 09) on a cluster of its own: lint, template, install, upgrade, uninstall.
	@scripts/helm.sh

.PHONY: bench-admission
bench-admission: binaries ## One rule, MyDaemonSet's pull-policy default: its webhook against a MutatingAdmissionPolicy (p50, p99 of 500 creates).
	@scripts/bench.sh admission

.PHONY: bench-imoocpod
bench-imoocpod: binaries ## ImoocPod against ReplicaSet: 0 to 500 pods on the embedded cluster.
	@scripts/bench.sh imoocpod

.PHONY: bench-mydaemonset
bench-mydaemonset: binaries ## MyDaemonSet against DaemonSet on 200 simulated nodes; the pod cache's memory under 10,000 other pods.
	@scripts/bench.sh mydaemonset

.PHONY: bench-nodepool
bench-nodepool: binaries ## NodePool on 1000 simulated nodes: label changes and the node patches they cost.
	@scripts/bench.sh nodepool

.PHONY: bench-short
bench-short: binaries ## Every benchmark at a fifth of its scale, as make test runs them: every target but the times.
	@for w in imoocpod mydaemonset nodepool sidecarset admission; do BENCH_SIZE=short scripts/bench.sh $$w || exit 1; done

.PHONY: bench-sidecarset-heap
bench-sidecarset-heap: binaries ## SidecarSet's pod cache with and without TrimPod under 10,000 pods: memory, and the informers' heap from pprof.
	@scripts/bench.sh sidecarset-heap

.PHONY: bench-sidecarset
bench-sidecarset: binaries ## SidecarSet: the latency its pod webhook adds (p50, p99 of 500 pods), its memory with 10,000 pods.
	@scripts/bench.sh sidecarset

# shellcheck shell=bash
# Stage 16: MyDaemonSet without a webhook. Sourced by scripts/run-stage.sh, which runs the manager and defines
# STAGE_DIR, start_manager, stop_manager, manager_errors and the walkthrough vocabulary
# (step, run, expect). It leaves nothing behind that would break another lesson on the
# same cluster.

step "What a user does first"
run kubectl get nodes

package controller

import (
	appsv1 "github.com/kube-workshop/operator-workshop/lessons/02-imoocpod-workflow/api/apps/v1"
)

// setReadyCondition sets the Ready condition from the counts in the status, the spec and
// the pass's error. Its message holds only counts and errors, never times, so that a
// pass that finds the same counts leaves the condition as it was.
func setReadyCondition(imoocPod *appsv1.ImoocPod, passErr error) {
	// TODO(2): Set the Ready condition.
	// Set the Ready condition with meta.SetStatusCondition. It is False with
	// reason ReconcileError and the error as its message when passErr is set;
	// else False with ScalingUp when fewer pods exist than spec.replicas asks
	// for, ScalingDown when more, PodsNotReady when some are not ready; else
	// True with AllReplicasReady. The reasons are constants in api/apps/v1; say the
	// counts in the message. See "Conditions" in docs/lesson-02.md.
}

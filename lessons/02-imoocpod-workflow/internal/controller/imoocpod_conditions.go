package controller

import (
	appsv1 "github.com/kube-workshop/operator-workshop/lessons/02-imoocpod-workflow/api/apps/v1"
)

// setReadyCondition sets the Ready condition from the counts in the status, the spec and
// the pass's error. Its message holds only counts and errors, never times, so that a
// pass that finds the same counts leaves the condition as it was.
func setReadyCondition(imoocPod *appsv1.ImoocPod, passErr error) {
	// TODO(2): Set the Ready condition.
	// The Ready condition says what the pass found, judged in this order: False with
	// ReconcileError and the error when the pass failed; False with ScalingUp (too few
	// pods), ScalingDown (too many) or PodsNotReady; else True with AllReplicasReady. Its
	// message gives the counts, so the same counts give the same condition. See
	// "Conditions" in docs/lesson-02.md.
}

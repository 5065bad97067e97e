package main

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func pod(name, node string, phase corev1.PodPhase, deleting bool) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: phase},
	}
	if deleting {
		now := metav1.Now()
		p.DeletionTimestamp = &now
	}
	return p
}

func TestTheTallyCountsOnlyAlivePodsAndKeepsTheMost(t *testing.T) {
	tl := &tally{alive: map[string]string{}}
	tl.observe(pod("a", "", corev1.PodPending, false), false)
	tl.observe(pod("b", "n1", corev1.PodRunning, false), false)
	tl.observe(pod("a", "n1", corev1.PodRunning, false), false)
	if got := tl.result; got.MaxAlive != 2 || got.MaxAliveOnANode != 2 || got.Node != "n1" {
		t.Fatalf("two running pods on n1: got %+v, want maxAlive 2, 2 on node n1", got)
	}
	// A terminating pod, a finished one and a deleted one are no longer alive: a third pod
	// created after them makes one alive, and the maximum stays 2.
	tl.observe(pod("a", "n1", corev1.PodRunning, true), false)
	tl.observe(pod("b", "n1", corev1.PodSucceeded, false), false)
	tl.observe(pod("c", "n2", corev1.PodRunning, false), false)
	if got := len(tl.alive); got != 1 {
		t.Fatalf("alive after a terminating and a finished pod: got %d, want 1", got)
	}
	tl.observe(pod("c", "n2", corev1.PodRunning, false), true)
	if got := tl.result; got.MaxAlive != 2 || got.Events != 7 || len(tl.alive) != 0 {
		t.Fatalf("after the deletes: got %+v with %d alive, want maxAlive 2, 7 events, none alive", got, len(tl.alive))
	}
}

func TestTheKillComesOnceWhenTheCountFirstReachesItsMark(t *testing.T) {
	kills := 0
	tl := &tally{alive: map[string]string{}, killAt: 2, kill: func() { kills++ }}
	tl.observe(pod("a", "", corev1.PodPending, false), false)
	if kills != 0 {
		t.Fatalf("killed with one pod alive, want the kill at two")
	}
	tl.observe(pod("b", "", corev1.PodPending, false), false)
	tl.observe(pod("c", "", corev1.PodPending, false), false)
	if kills != 1 || tl.result.AliveAtKill != 2 {
		t.Fatalf("got %d kills with %d alive at the kill, want 1 kill at 2 alive", kills, tl.result.AliveAtKill)
	}
}

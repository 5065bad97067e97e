package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The webhook configurations a MyDaemonSet stage installs (config/webhook), which the
// admission workload removes as it goes.
const (
	mutatingConfiguration   = "mutating-webhook-configuration"
	validatingConfiguration = "validating-webhook-configuration"
	// pullPolicyFile is the stage's MutatingAdmissionPolicy, and its binding, that
	// default spec.imagePullPolicy as the mutating webhook does.
	pullPolicyFile = "pull_policy.yaml"
)

// mydaemonsetAdmission measures the same rule, lesson 04's pull-policy default, run by
// the manager's mutating webhook and by a MutatingAdmissionPolicy inside the API server:
// count server-side dry-run creates of a MyDaemonSet without spec.imagePullPolicy, one at
// a time, in each of three setups:
//   - the mutating webhook alone (the validating one is removed first: it checks other
//     rules, and would count on one side only);
//   - neither the webhook nor the policy: what a create costs without them;
//   - the policy of policies/pull_policy.yaml alone.
//
// A dry run goes through the whole admission chain and stores nothing, so that etcd's
// writes do not blur the difference. It leaves the policy installed: scripts/bench.sh
// deletes the cluster.
func (b *bench) mydaemonsetAdmission(host string, count int, policies string) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	policy, err := readManifests(filepath.Join(policies, pullPolicyFile))
	must(err)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-admission-"}}
	must(b.c.Create(ctx, ns))

	must(client.IgnoreNotFound(b.c.Delete(ctx, webhookConfiguration("ValidatingWebhookConfiguration", validatingConfiguration))))
	// The manager has just started: until its webhook server answers, the API server
	// refuses MyDaemonSets (the webhook fails closed).
	b.waitForDefault(ctx, ns.Name, "the mutating webhook")

	fmt.Printf("Creating %d MyDaemonSets one at a time (server-side dry runs), three ways, on %s\n\n", count, host)
	byWebhook := b.dryRunCreates(ctx, "mutating webhook (the manager)", ns.Name, count)
	must(b.c.Delete(ctx, webhookConfiguration("MutatingWebhookConfiguration", mutatingConfiguration)))
	none := b.dryRunCreates(ctx, "neither: no default", ns.Name, count)
	for _, obj := range policy {
		must(b.c.Create(ctx, obj))
	}
	b.waitForDefault(ctx, ns.Name, "the MutatingAdmissionPolicy of "+pullPolicyFile)
	byPolicy := b.dryRunCreates(ctx, "MutatingAdmissionPolicy (API server)", ns.Name, count)
	must(client.IgnoreNotFound(b.c.Delete(ctx, ns)))

	results := []admissionLatency{none, byWebhook, byPolicy}
	fmt.Printf("\n%-40s %10s %10s %14s\n", "MyDaemonSet creations (dry run)", "p50", "p99", "p50 added")
	for _, r := range results {
		fmt.Printf("%-40s %8.1fms %8.1fms %12.1fms\n", r.name, ms(r.p50), ms(r.p99), ms(r.p50-none.p50))
	}
	expectTimeAtMost("p50 the policy adds to a MyDaemonSet creation", ms(byPolicy.p50-none.p50), policyTarget, "%.1f ms")
	// The differences are fractions of a millisecond, within the noise of one run: the
	// policy is held to the webhook's whole figure, not to a ratio of two differences.
	expectTimeAtMost("p50 with the policy / p50 with the webhook", ratio(byPolicy.p50, byWebhook.p50), 1, "%.2fx")
	reportTargets()
}

// policyTarget is what the policy may add to the median creation, in milliseconds: CEL
// evaluated in the API server's own process, with no network call.
const policyTarget = 5

func webhookConfiguration(kind, name string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: kind})
	obj.SetName(name)
	return obj
}

func newBenchMyDaemonSet(ns string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.workshop.dev/v1",
		"kind":       "MyDaemonSet",
		"metadata":   map[string]any{"namespace": ns, "name": "bench"},
		"spec":       map[string]any{"image": "registry.k8s.io/pause:latest"},
	}}
}

// waitForDefault waits until a dry-run create comes back with spec.imagePullPolicy set:
// until what sets it, the webhook or the policy, is in force.
func (b *bench) waitForDefault(ctx context.Context, ns, what string) {
	var err error
	for began := time.Now(); time.Since(began) < 30*time.Second; time.Sleep(200 * time.Millisecond) {
		mds := newBenchMyDaemonSet(ns)
		if err = b.c.Create(ctx, mds, client.DryRunAll); err != nil {
			continue
		}
		if policy, _, _ := unstructured.NestedString(mds.Object, "spec", "imagePullPolicy"); policy == "Always" {
			return
		}
		err = errors.New("spec.imagePullPolicy is not set")
	}
	fail(fmt.Errorf("%s never defaulted a MyDaemonSet within 30s: %w", what, err))
}

// dryRunCreates creates count MyDaemonSets in ns, each as a server-side dry run once the
// previous one is answered, and returns the latencies; a few creates first warm up
// connections and caches.
func (b *bench) dryRunCreates(ctx context.Context, name, ns string, count int) admissionLatency {
	fmt.Printf("%s: %d creates\n", name, count)
	for range 20 {
		must(b.c.Create(ctx, newBenchMyDaemonSet(ns), client.DryRunAll))
	}
	took := make([]time.Duration, 0, count)
	for range count {
		mds := newBenchMyDaemonSet(ns)
		began := time.Now()
		must(b.c.Create(ctx, mds, client.DryRunAll))
		took = append(took, time.Since(began))
	}
	slices.Sort(took)
	return admissionLatency{name: name, p50: took[len(took)/2], p99: took[len(took)*99/100]}
}

// readManifests returns the objects of a YAML file of one or more documents.
func readManifests(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var obj map[string]any
		if err := decoder.Decode(&obj); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(obj) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: obj})
		}
	}
}

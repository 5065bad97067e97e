package testenv

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A stage that restricts a kind's cache by label gives that kind its own selector, which
// replaces the default one: the unmanaged exclusion must be added to both.
func TestWithoutUnmanagedKeepsTheStageSelectorAndHidesUnmanagedObjects(t *testing.T) {
	pod := &corev1.Pod{}
	stage := cache.Options{ByObject: map[client.Object]cache.ByObject{
		pod:            {Label: labels.SelectorFromSet(labels.Set{"owner": "us"})},
		&corev1.Node{}: {},
	}}
	got, err := withoutUnmanaged(stage)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name     string
		selector labels.Selector
		labels   labels.Set
		want     bool
	}{
		{"default: plain object", got.DefaultLabelSelector, labels.Set{}, true},
		{"default: unmanaged object", got.DefaultLabelSelector, labels.Set{UnmanagedLabel: "true"}, false},
		{"pods: ours", got.ByObject[pod].Label, labels.Set{"owner": "us"}, true},
		{"pods: someone else's", got.ByObject[pod].Label, labels.Set{"owner": "them"}, false},
		{"pods: ours, unmanaged", got.ByObject[pod].Label, labels.Set{"owner": "us", UnmanagedLabel: "true"}, false},
	}
	for _, c := range cases {
		if matched := c.selector.Matches(c.labels); matched != c.want {
			t.Errorf("%s: selector %q matches %v = %v, want %v", c.name, c.selector, c.labels, matched, c.want)
		}
	}
	for obj, by := range got.ByObject {
		if _, isNode := obj.(*corev1.Node); isNode && by.Label != nil {
			t.Errorf("nodes: got selector %q; a kind without its own selector must keep the default", by.Label)
		}
	}
	if stage.ByObject[pod].Label.String() != "owner=us" {
		t.Errorf("the stage's options changed to %q; withoutUnmanaged must work on a copy", stage.ByObject[pod].Label)
	}
}

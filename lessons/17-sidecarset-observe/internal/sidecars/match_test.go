package sidecars

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
)

func TestSelects(t *testing.T) {
	team := &metav1.LabelSelector{MatchLabels: map[string]string{"team": "web"}}
	web := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	webPod := map[string]string{"app": "web"}
	tests := []struct {
		name              string
		selector          *metav1.LabelSelector
		namespaceSelector *metav1.LabelSelector
		pod, namespace    map[string]string
		want              bool
		wantErr           string // the error's start: the field that does not parse
	}{
		{"the pod's labels match", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, nil,
			map[string]string{"app": "web", "tier": "front"}, nil, true, ""},
		{"they do not", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, nil,
			map[string]string{"app": "db"}, nil, false, ""},
		{"no selector selects none", nil, nil, webPod, nil, false, ""},
		// The validating webhook refuses an empty selector; one stored without it must
		// not give its sidecars to every pod of the cluster.
		{"an empty selector selects none either", &metav1.LabelSelector{}, nil, webPod, nil, false, ""},
		{"the namespace matches too", web, team, webPod, map[string]string{"team": "web"}, true, ""},
		{"the namespace does not", web, team, webPod, map[string]string{"team": "db"}, false, ""},
		{"an empty namespace selector matches every namespace", web, &metav1.LabelSelector{}, webPod, nil, true, ""},
		{"a selector that does not parse", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: "Like"}}}, nil, nil, nil, false, "spec.selector: "},
		{"a namespace selector that does not parse", web, &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: "Like"}}},
			webPod, map[string]string{"team": "web"}, false, "spec.namespaceSelector: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			set := &sidecarsv1.SidecarSet{Spec: sidecarsv1.SidecarSetSpec{Selector: tt.selector, NamespaceSelector: tt.namespaceSelector}}
			got, err := Selects(set, tt.pod, tt.namespace)
			if tt.wantErr != "" {
				g.Expect(err).To(MatchError(HavePrefix(tt.wantErr)),
					"a selector that does not parse selects nothing, with an error that names its field")
			} else {
				g.Expect(err).NotTo(HaveOccurred())
			}
			g.Expect(got).To(Equal(tt.want), "Selects for pod labels %v, namespace labels %v", tt.pod, tt.namespace)
		})
	}
}

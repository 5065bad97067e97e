package testenv

import (
	"testing"

	. "github.com/onsi/gomega"
)

func TestSetPathChangesOneFieldOfAManifest(t *testing.T) {
	manifest := func() map[string]any {
		return map[string]any{"kind": "Widget", "spec": map[string]any{"size": 2, "color": "red"}}
	}
	tests := []struct {
		name  string
		path  string
		value any
		want  map[string]any
	}{
		{"a field", "spec.size", 3,
			map[string]any{"kind": "Widget", "spec": map[string]any{"size": 3, "color": "red"}}},
		{"a new field, with the maps on its way", "metadata.labels.app", "web",
			map[string]any{"kind": "Widget", "spec": map[string]any{"size": 2, "color": "red"},
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}}}},
		{"a field under one that is not a map", "kind.name", "x",
			map[string]any{"kind": map[string]any{"name": "x"}, "spec": map[string]any{"size": 2, "color": "red"}}},
		{"nil deletes", "spec.color", nil,
			map[string]any{"kind": "Widget", "spec": map[string]any{"size": 2}}},
		{"nil deletes a whole object", "spec", nil, map[string]any{"kind": "Widget"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := manifest()
			setPath(obj, tt.path, tt.value)
			NewWithT(t).Expect(obj).To(Equal(tt.want))
		})
	}
}

package testenv

import (
	"path/filepath"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ReadSample reads the sample name, a file of the module's config/samples, into obj
// (ReadManifest): the objects the walkthrough and the docs use, which a test holds to
// their fate.
func ReadSample(name string, obj client.Object) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	return ReadManifest(filepath.Join(root, "config", "samples", name), obj)
}

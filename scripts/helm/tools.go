//go:build tools

// Package helm pins Helm, which make binaries builds from source through the Go module
// proxy (scripts/build-binaries.sh) for the tests of the NodePool chart (scripts/helm.sh).
// A module of its own: Helm's dependencies would move the Kubernetes libraries the
// workshop's tools pin.
package helm

import _ "helm.sh/helm/v4/cmd/helm"

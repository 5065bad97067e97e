// Package kubebuilder holds the tests that keep the lessons and solutions a layout
// kubebuilder can work in: each stage's PROJECT file, generated from its track's, records
// every kind its api/ declares and every webhook it serves, and the pinned kubebuilder
// (scripts/build-binaries.sh) scaffolds the webhooks lesson 04 names into lesson 03.
package kubebuilder

// Package capstone is the grading suite of lesson 15, the capstone: black-box tests of a
// ConfigMapCopy operator, one per requirement of docs/lesson-15.md (R1, R2, ...). They
// talk to the API server alone and import nothing of the operator under test, so that
// they grade any module with the spec's group, kind and version, as its users would.
//
// The tests carry the build tag capstone, so that go test ./... of this module does not
// run them: `make check-15` (workshop check 15) does, with
//
//	CAPSTONE_MODULE   the operator's module folder, with its generated config/crd/bases
//	                  and config/webhook
//	CAPSTONE_MANAGER  its manager, built (go build ./cmd)
//	CAPSTONE_LOG      where the manager's output goes
//	KUBEBUILDER_ASSETS  the folder of etcd and kube-apiserver
//
// TestMain starts a control plane with the module's CRDs and webhook configurations,
// then the manager against it, on a free port for its webhooks, with the certificate
// envtest made.
package capstone

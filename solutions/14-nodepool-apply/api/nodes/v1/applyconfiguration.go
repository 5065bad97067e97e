// controller-gen generates the apply configurations of this package's kinds into
// applyconfiguration/ (lesson 14): typed, partial objects for the client's Apply method, as
// k8s.io/client-go/applyconfigurations has for the built-in kinds.
// +kubebuilder:ac:generate=true

package v1

// SchemeGroupVersion is GroupVersion under the name the generated apply configurations
// use (applyconfiguration/utils.go), as client-go's API packages spell it.
var SchemeGroupVersion = GroupVersion

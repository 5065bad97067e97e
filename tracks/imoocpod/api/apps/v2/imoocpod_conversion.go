package v2

// Hub marks v2 as the version every other version of ImoocPod converts to and from
// (controller-runtime's conversion.Hub): with n versions, n-1 pairs of conversions
// rather than one for each pair of versions.
func (*ImoocPod) Hub() {}

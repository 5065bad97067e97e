package v1

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// imageRef is a container image reference split into its parts:
// [registry[:port]/]repository[:tag][@digest].
type imageRef struct {
	// name is the registry, when there is one, and the repository.
	name string
	// tag is "" when the reference has none.
	tag string
	// digest is "" when the reference has none.
	digest string
}

// String puts the parts back together; for a parsed reference it is the input.
func (r imageRef) String() string {
	s := r.name
	if r.tag != "" {
		s += ":" + r.tag
	}
	if r.digest != "" {
		s += "@" + r.digest
	}
	return s
}

// floating reports whether the reference may name another image tomorrow: it has no
// digest, and its tag is latest or missing, which the container runtime reads as latest.
// A pinned version can be pushed again too, but by convention it is not.
func (r imageRef) floating() bool {
	return r.digest == "" && (r.tag == "" || r.tag == "latest")
}

// The grammar of an image reference, as the kubelet and the container runtimes parse it
// (github.com/distribution/reference, which is not in this module's dependencies).
const (
	// A registry: host names (any case), IPv4 addresses or [IPv6], and a port.
	domainComponent = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	domain          = `(?:` + domainComponent + `(?:\.` + domainComponent + `)*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?`
	// A repository: lowercase components separated by "/"; inside a component, runs of
	// letters and digits separated by ".", "_", "__" or dashes.
	pathComponent = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
	name          = `(?:` + domain + `/)?` + pathComponent + `(?:/` + pathComponent + `)*`
	tag           = `[\w][\w.-]{0,127}`
	digest        = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`
)

var (
	referenceRegexp = regexp.MustCompile(`^(` + name + `)(?::(` + tag + `))?(?:@(` + digest + `))?$`)
	imageIDRegexp   = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// digestLengths holds the algorithms the runtimes know, with the length of their
	// lowercase hex digests.
	digestLengths = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}
)

// maxNameLength is the longest registry and repository the runtimes accept.
const maxNameLength = 255

// parseImage splits image into its parts, or says why it is not an image reference.
func parseImage(image string) (imageRef, error) {
	if strings.TrimSpace(image) != image {
		return imageRef{}, errors.New("must not have leading or trailing whitespace")
	}
	if imageIDRegexp.MatchString(image) {
		return imageRef{}, errors.New("a 64-digit hex string is an image ID, not a reference")
	}
	m := referenceRegexp.FindStringSubmatch(image)
	if m == nil {
		if referenceRegexp.MatchString(strings.ToLower(image)) {
			return imageRef{}, errors.New("the repository must be lowercase")
		}
		return imageRef{}, errors.New("must be [registry[:port]/]repository[:tag][@digest], such as registry.k8s.io/pause:3.10")
	}
	ref := imageRef{name: m[1], tag: m[2], digest: m[3]}
	if len(ref.name) > maxNameLength {
		return imageRef{}, fmt.Errorf("the registry and repository must be no more than %d characters", maxNameLength)
	}
	if ref.digest != "" {
		algorithm, hex, _ := strings.Cut(ref.digest, ":")
		length, known := digestLengths[algorithm]
		switch {
		case !known:
			return imageRef{}, fmt.Errorf("the digest algorithm must be sha256, sha384 or sha512, not %q", algorithm)
		case len(hex) != length || strings.ToLower(hex) != hex:
			return imageRef{}, fmt.Errorf("a %s digest has %d lowercase hex digits", algorithm, length)
		}
	}
	return ref, nil
}

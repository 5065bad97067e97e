package v1

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

func TestParseImageSplitsAReference(t *testing.T) {
	digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		image string
		want  imageRef
	}{
		{"busybox", imageRef{name: "busybox"}},
		{"library/busybox:1.37", imageRef{name: "library/busybox", tag: "1.37"}},
		{"registry.k8s.io/pause:3.10", imageRef{name: "registry.k8s.io/pause", tag: "3.10"}},
		{"localhost:5000/pause", imageRef{name: "localhost:5000/pause"}},
		{"localhost:5000/pause:3.10", imageRef{name: "localhost:5000/pause", tag: "3.10"}},
		{"[::1]:5000/team/pause:v1_RC-2", imageRef{name: "[::1]:5000/team/pause", tag: "v1_RC-2"}},
		{"Registry.Example.COM/a__b/c-d.e:TAG", imageRef{name: "Registry.Example.COM/a__b/c-d.e", tag: "TAG"}},
		{"pause@" + digest, imageRef{name: "pause", digest: digest}},
		{"pause:latest@" + digest, imageRef{name: "pause", tag: "latest", digest: digest}},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			g := NewWithT(t)
			got, err := parseImage(tt.image)
			g.Expect(err).NotTo(HaveOccurred(), "%q is a valid reference", tt.image)
			g.Expect(got).To(Equal(tt.want))
			g.Expect(got.String()).To(Equal(tt.image), "the parts put back together")
		})
	}
}

func TestParseImageSaysWhatIsWrong(t *testing.T) {
	tests := []struct {
		image string
		want  string
	}{
		{"pause 3.10", "must be [registry[:port]/]repository[:tag][@digest]"},
		{"pause:", "must be [registry[:port]/]repository[:tag][@digest]"},
		{"pause:3.10:3.9", "must be [registry[:port]/]repository[:tag][@digest]"},
		{"/pause", "must be [registry[:port]/]repository[:tag][@digest]"},
		{"registry.k8s.io/pause/", "must be [registry[:port]/]repository[:tag][@digest]"},
		{"pause:" + strings.Repeat("t", 129), "must be [registry[:port]/]repository[:tag][@digest]"},
		{"pause\t", "must not have leading or trailing whitespace"},
		{"Pause", "the repository must be lowercase"},
		{"registry.k8s.io/Pause:3.10", "the repository must be lowercase"},
		{strings.Repeat("a", 64), "a 64-digit hex string is an image ID"},
		{"example.com/" + strings.Repeat("a", 250), "no more than 255 characters"},
		{"pause@md5:" + strings.Repeat("a", 32), `the digest algorithm must be sha256, sha384 or sha512, not "md5"`},
		{"pause@sha256:" + strings.Repeat("a", 63), "a sha256 digest has 64 lowercase hex digits"},
		{"pause@sha256:" + strings.Repeat("A", 64), "a sha256 digest has 64 lowercase hex digits"},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			_, err := parseImage(tt.image)
			NewWithT(t).Expect(err).To(MatchError(ContainSubstring(tt.want)), "%q is not a valid reference", tt.image)
		})
	}
}

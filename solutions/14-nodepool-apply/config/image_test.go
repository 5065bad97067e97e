package config

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// instruction is one line of a Dockerfile, its continuation lines joined.
type instruction struct {
	Op   string // FROM, COPY, RUN, ... in capitals
	Args string
}

// dockerfile reads the module's Dockerfile, without comments.
func dockerfile(t *testing.T) []instruction {
	t.Helper()
	file, err := os.Open(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out []instruction
	var line string
	scanner := bufio.NewScanner(file)
	for scanner.Scan() {
		text := strings.TrimSpace(scanner.Text())
		if strings.HasPrefix(text, "#") || text == "" && line == "" {
			continue
		}
		if cont, ok := strings.CutSuffix(text, "\\"); ok {
			line += cont + " "
			continue
		}
		line += text
		op, args, _ := strings.Cut(line, " ")
		out = append(out, instruction{Op: strings.ToUpper(op), Args: strings.Join(strings.Fields(args), " ")})
		line = ""
	}
	return out
}

// The modules are downloaded in a layer of their own, before the source is copied, so
// that a change to the code does not download them again; the proxy can be given.
func TestTheImageDownloadsModulesInTheirOwnLayer(t *testing.T) {
	g := NewWithT(t)
	steps := dockerfile(t)
	at := func(op, contains string) int {
		return slices.IndexFunc(steps, func(s instruction) bool { return s.Op == op && strings.Contains(s.Args, contains) })
	}
	download := at("RUN", "go mod download")
	g.Expect(download).To(BeNumerically(">=", 0), "the Dockerfile should RUN go mod download")
	g.Expect(at("COPY", "go.mod go.sum ./")).To(BeNumerically("<", download), "copy go.mod and go.sum before go mod download")
	g.Expect(at("COPY", "--from=shared go.mod go.sum")).To(BeNumerically("<", download),
		"copy the shared module's go.mod and go.sum before go mod download: this module's go.mod replaces it with ../../shared")
	source := at("COPY", ". .")
	g.Expect(source).To(BeNumerically(">", download), "copy the source (COPY . .) after go mod download, so that the download's layer survives a change to the code")
	g.Expect(at("ARG", "GOPROXY")).To(BeNumerically("<", download), "declare ARG GOPROXY before the download, so that --build-arg GOPROXY=... reaches it")
}

// The image: built in one stage, run from another that has nothing but the binary,
// as a user that is not root.
func TestTheImageRunsAStaticBinaryAsNonRoot(t *testing.T) {
	g := NewWithT(t)
	steps := dockerfile(t)
	var froms []int
	for i, s := range steps {
		if s.Op == "FROM" {
			froms = append(froms, i)
		}
	}
	g.Expect(froms).To(HaveLen(2), "the Dockerfile should have two stages: one that builds, one that runs")
	build, run := steps[:froms[1]], steps[froms[1]:]
	g.Expect(build).To(ContainElement(SatisfyAll(HaveField("Op", "ENV"), HaveField("Args", ContainSubstring("CGO_ENABLED=0")))),
		"the build should set CGO_ENABLED=0: a binary without cgo needs no C library in the image that runs")
	g.Expect(run[0].Args).To(HavePrefix("gcr.io/distroless/static"), "the image that runs should start from distroless/static: no shell, no package manager")
	g.Expect(run).To(ContainElement(SatisfyAll(HaveField("Op", "COPY"), HaveField("Args", HavePrefix("--from=builder")))),
		"the image that runs should copy the binary from the builder stage")
	users := slices.DeleteFunc(slices.Clone(run), func(s instruction) bool { return s.Op != "USER" })
	g.Expect(users).NotTo(BeEmpty(), "the image that runs should set USER, or it runs as root")
	user, _, _ := strings.Cut(users[len(users)-1].Args, ":")
	g.Expect(user).NotTo(BeElementOf("0", "root"), "the image should run as a user that is not root (the Deployment requires runAsNonRoot)")
	g.Expect(user).To(MatchRegexp(`^[0-9]+$`), "USER should be numeric: the kubelet checks runAsNonRoot on the number, not on a name")
}

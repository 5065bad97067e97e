package stockmac

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// run runs the bash line in dir with PATH, and returns what it printed.
func run(t *testing.T, path, dir, line string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = dir
	cmd.Env = Env(path)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Each stand-in refuses what BSD's tool refuses, and does what BSD's does where GNU's
// quietly does something else.
func TestStandInsBehaveAsBSDs(t *testing.T) {
	path, err := Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line, want string // want: the output, or "fails" for an error
	}{
		{"sed -i 's/a/b/' f", "fails"}, // the script is the suffix, and f the script
		{"sed -i -E 's/(a)/b/' f; ls | tr '\\n' ' '; cat f", "f f-E a\n"},
		{"sed -i.bak 's/a/b/' f && rm f.bak && cat f", "b\n"},
		{"sed -n -e 's/a/c/p' f", "c\n"},
		{"sed --expression=s/a/b/ f", "fails"},
		{"date +%s%N | tr -d 0-9", "N\n"},
		{"date -d yesterday", "fails"},
		{"mkdir d && cp --parents f d", "fails"},
		{"mkdir d && cp -t d f", "fails"},
		{"mkdir d && cp f d/ && ls d", "f\n"},
		{"mv -T f g", "fails"},
		{"base64 -w0 f", "fails"},
		{"head -c 100 /dev/zero | base64 | wc -l | tr -d ' '", "1\n"},
		{"base64 f | base64 -D", "a\n"},
		{"wc -l <f", "       1\n"},
		{"wc -l f", "       1 f\n"},
		{"echo a >g && diff --color=always f g", "fails"},
		{"diff f f && echo same", "same\n"},
		{"stat -c %s f", "fails"},
		{"grep -P 'a' f", "fails"},
		{"grep -qxF a f && echo found", "found\n"},
		{"echo f | xargs -r cat", "fails"},
		{"printf '' | xargs echo ran", ""},
		{"echo f | xargs -n1 cat", "a\n"},
		{"readlink -f f", "fails"},
		{"find . -printf '%p\\n'", "fails"},
		{"for c in timeout setsid ss nproc flock sha256sum; do command -v $c || true; done", ""},
		{"shasum -a 256 f | cut -c1-8", "87428fc5\n"},
		{"printf a | shasum | cut -c1-8", "86f7e437\n"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := run(t, path, dir, c.line)
		switch {
		case c.want == "fails" && err == nil:
			t.Errorf("%s: want an error, as on a Mac; it printed %q", c.line, out)
		case c.want == "/" && (err != nil || !strings.HasPrefix(out, "/")):
			t.Errorf("%s: want a path, got %v and %q", c.line, err, out)
		case c.want != "fails" && c.want != "/" && (err != nil || out != c.want):
			t.Errorf("%s: want %q, got %v and %q", c.line, c.want, err, out)
		}
	}
}

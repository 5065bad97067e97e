package main

import (
	"strings"
	"testing"
)

// Each rule: a snippet bash 3.2 or a Mac's tools fail on, which the lint must flag on
// its last line (before a closing } or esac) with a message that names the construct (want), and the portable form
// of the same, which must pass.
var rules = []struct {
	name, bad, want, good string
}{
	// bash 4 and later
	{"associative array", "declare -A seen=()", "declare -A", `seen=" "`},
	{"local associative array", "f() {\n  local -A seen\n}", "local -A", "f() {\n  local seen=' '\n}"},
	{"nameref", "f() {\n  local -n ref=$1\n}", "local -n", "f() {\n  local ref=$1\n}"},
	{"declare -g", "declare -g x=1", "declare -g", "x=1"},
	{"declare -l", "declare -l x=$1", "declare -l", `x=$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')`},
	{"wait -n", "sleep 1 &\nwait -n", "wait -n", "sleep 1 &\npid=$!\nwait \"$pid\""},
	{"lower case", `echo "${x,,}"`, "case modification", `echo "$(printf '%s' "$x" | tr '[:upper:]' '[:lower:]')"`},
	{"upper case", `echo "${x^^}"`, "case modification", `echo "$(printf '%s' "$x" | tr '[:lower:]' '[:upper:]')"`},
	{"first upper", `echo "${x^}"`, "case modification", `echo "$x"`},
	{"quoting transformation", `echo "${x@Q}"`, "transformation", `printf '%q\n' "$x"`},
	{"negative subscript", `a=(1 2); echo "${a[-1]}"`, "negative subscript", `a=(1 2); echo "${a[${#a[@]}-1]}"`},
	{"negative arithmetic subscript", `a=(1 2); echo "${a[-2+1]}"`, "negative subscript", `a=(1 2); echo "${a[${#a[@]}-1]}"`},
	{"negative length", `x=abc; echo "${x:0:-1}"`, "negative length", `x=abc; echo "${x:0:${#x}-1}"`},
	{"BASHPID", `echo "$BASHPID"`, "$BASHPID", `echo "$(sh -c 'echo "$PPID"')"`},
	{"EPOCHSECONDS", `echo "$EPOCHSECONDS"`, "$EPOCHSECONDS", `date +%s`},
	{"mapfile", "mapfile -t lines <file", "mapfile", "while IFS= read -r line; do lines+=(\"$line\"); done <file"},
	{"readarray", "readarray lines <file", "readarray", "while IFS= read -r line; do lines+=(\"$line\"); done <file"},
	{"coproc", "coproc cat", "coproc", "cat &"},
	{"append both outputs", "make &>>log", "&>>", "make >>log 2>&1"},
	{"pipe both outputs", "make |& tee log", "|&", "make 2>&1 | tee log"},
	{"case resume", "case $x in\n  a*) echo a ;;&\nesac", ";;&", "case $x in\n  a*) echo a ;;\nesac"},
	{"case fall-through", "case $x in\n  a*) echo a ;&\nesac", ";&", "case $x in\n  a*) echo a ;;\nesac"},
	{"test -v", "[[ -v x ]]", "-v NAME", `[[ -n ${x+set} ]]`},
	{"allocated descriptor", "exec {fd}>log", "{var}>", "exec 3>log"},
	{"printf time", `printf '%(%s)T\n' -1`, "%(...)T", "date +%s"},
	{"globstar", "shopt -s globstar", "globstar", "shopt -s nullglob"},
	// Empty arrays under set -u
	{"empty array", "a=()\necho \"${a[@]}\"", "may be empty", "a=()\necho ${a[@]+\"${a[@]}\"}"},
	{"empty local array", "f() {\n  local a=()\n  g \"${a[@]}\"\n}", "may be empty", "f() {\n  local a=()\n  g ${a[@]+\"${a[@]}\"}\n}"},
	{"array of the arguments", "f() {\n  local only=(\"$@\")\n  for x in \"${only[@]}\"; do :; done\n}", "may be empty",
		"f() {\n  local only=(\"$@\")\n  for x in ${only[@]+\"${only[@]}\"}; do :; done\n}"},
	{"empty array in a trap", "dirs=()\ntrap 'rm -rf \"${dirs[@]}\"' EXIT", "may be empty", "dirs=()\ntrap 'rm -rf ${dirs[@]+\"${dirs[@]}\"}' EXIT"},
	{"wait -n in bash -c", `bash -c 'sleep 1 & wait -n'`, "wait -n", `bash -c 'sleep 1 & wait'`},
	{"date %N in eval", `eval 'start=$(date +%s%N)'`, "%N", `eval 'start=$(date +%s)'`},
	{"declared array", "declare -a a\necho \"${a[*]}\"", "may be empty", "declare -a a\necho \"${a[*]:-}\""},
	{"array of a command's words", "a=($(ls))\necho \"${a[@]}\"", "may be empty", "a=(x $(ls))\necho \"${a[@]}\""},
	// GNU-only options
	{"sed -i", `sed -i 's/a/b/' file`, "sed -i without a suffix", `sed -i.bak 's/a/b/' file && rm file.bak`},
	{"sed -Ei", `sed -Ei 's/a/b/' file`, "sed -i without a suffix", `sed -E -i.bak 's/a/b/' file && rm file.bak`},
	{"sed -i -E", `sed -i -E 's/a/b/' file`, "sed -i without a suffix", `sed -E 's/a/b/' file >file.new && mv file.new file`},
	{"sed -r", `sed -r 's/a+/b/'`, "sed -r", `sed -E 's/a+/b/'`},
	{"sed long option", `sed --expression='s/a/b/'`, "sed --expression", `sed -e 's/a/b/'`},
	{"date %N", `start=$(date +%s%N)`, "%N", `start=$(date +%s)`},
	{"date quoted %N", `date '+%s.%N'`, "%N", `date '+%s'`},
	{"date -d", `date -d yesterday`, "date -d", `date -u +%Y`},
	{"wc in quotes", `echo "Always $(ls | wc -w)"`, "a count of wc inside quotes", `echo "Always $(($(ls | wc -w)))"`},
	{"base64 -w0", `ca=$(base64 -w0 <ca.crt)`, "base64 -w", `ca=$(base64 <ca.crt | tr -d '\n')`},
	{"base64 -w 0", `base64 -w 0 <ca.crt`, "base64 -w", `base64 <ca.crt | tr -d '\n'`},
	{"cp --parents", `cp --parents a/b dest`, "cp --parents", `mkdir -p dest/a && cp a/b dest/a/`},
	{"cp -t", `cp -t dest a b`, "cp -t", `cp a b dest/`},
	{"cp -rt", `cp -rt dest a`, "cp -t", `cp -R a dest/`},
	{"mv -T", `mv -T new old`, "mv -T", `rm -rf old && mv new old`},
	{"mv long option", `mv --force a b`, "mv --force", `mv -f a b`},
	{"diff --color", `diff --color=always -u a b`, "diff --color", `diff -u a b`},
	{"stat -c", `stat -c %s file`, "stat -c", `wc -c <file`},
	{"grep -P", `grep -P '\d+' file`, "grep -P", `grep -E '[0-9]+' file`},
	{"grep -oP", `grep -oP 'a\Kb' file`, "grep -P", `grep -o 'ab' file`},
	{"xargs -r", `find . -name x | xargs -r rm`, "xargs -r", `find . -name x | xargs rm -f`},
	{"find -printf", `find . -printf '%P\n'`, "find -printf", `find . | sed 's|^\./||'`},
	{"readlink -f", `readlink -f "$0"`, "readlink -f", `(cd "$(dirname "$0")" && echo "$(pwd -P)/$(basename "$0")")`},
	{"sort -V", `sort -V versions`, "sort -V", `sort -t. -k1,1n -k2,2n -k3,3n versions`},
	// The command run by another is checked too.
	{"xargs sed -i", `find . -print0 | xargs -0 sed -i 's/a/b/'`, "sed -i without a suffix", `find . -print0 | xargs -0 sed -i.bak 's/a/b/'`},
	{"xargs cp --parents", `xargs cp --parents -t dest <list`, "cp --parents", `xargs cp dest/ <list`},
	{"find -exec sed -i", `find . -exec sed -i 's/a/b/' {} +`, "sed -i without a suffix", `find . -exec sed -i.bak 's/a/b/' {} +`},
	{"nice date", `nice -n 19 date +%N`, "%N", `nice -n 19 date +%s`},
	// Commands a Mac lacks
	{"timeout", `timeout 10 cmd`, "timeout is not", `cmd & pid=$!`},
	{"setsid", `setsid cmd`, "setsid", `set -m; cmd &`},
	{"ss", `ss -ltn`, "ss is not", `lsof -nP -iTCP:80 -sTCP:LISTEN`},
	{"nproc", `n=$(nproc)`, "nproc", `n=$(getconf _NPROCESSORS_ONLN)`},
	{"flock", `flock lock cmd`, "flock", `mkdir lock.d && cmd`},
	{"sha256sum", `sha256sum file`, "sha256sum", `command -v sha256sum >/dev/null && sha256sum file || shasum -a 256 file`},
	{"sha256sum in a pipe", `cat a | sha256sum`, "sha256sum",
		"if command -v sha256sum >/dev/null; then\n  cat a | sha256sum\nelse\n  cat a | shasum -a 256\nfi"},
	{"md5sum", `md5sum file`, "md5sum", `command -v md5sum >/dev/null && md5sum file || md5 -r file`},
}

func TestEachRuleFlagsItsConstructAndPassesItsPortableForm(t *testing.T) {
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			found, err := lint("bad.sh", []byte(r.bad+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(r.bad, "\n")
			last := len(lines)
			for lines[last-1] == "}" || lines[last-1] == "esac" {
				last--
			}
			ok := false
			for _, f := range found {
				ok = ok || f.Line == last && strings.Contains(f.What, r.want) && f.Fix != ""
			}
			if !ok {
				t.Errorf("%q: want a finding on line %d that says %q, got %v", r.bad, last, r.want, found)
			}
			found, err = lint("good.sh", []byte(r.good+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			if len(found) > 0 {
				t.Errorf("the portable form %q: want no finding, got %v", r.good, found)
			}
		})
	}
}

// Options and names are those of the command, not of its arguments: kubectl's
// --timeout, a tool's subcommand named timeout, sed's script are not flagged.
func TestArgumentsAreNotCommands(t *testing.T) {
	for _, src := range []string{
		`kubectl wait --for=condition=Ready node --all --timeout=60s`,
		`"$TODOS" timeout -index x`,
		`echo sha256sum nproc`,
		`sed -n '2,/^source/p' "$0"`,
		`sed -e 's/-i//' file`,
		`grep -e -P file`,
		`date +%s`,
		`sort -k2,2n -t, file`,
		`xargs -n1 echo -r`,
		`cp -Rp a b`,
		`a=(x y); echo "${a[@]}"`,
		`a=("$x"); echo "${a[@]}"`,
		`a=(*.go); echo "${a[@]}"`,
		`a=(); a+=(x); echo "${#a[@]}"`,
		`a=(); echo "${!a[@]}"`,
	} {
		found, err := lint("ok.sh", []byte(src+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if len(found) > 0 {
			t.Errorf("%q: want no finding, got %v", src, found)
		}
	}
}

// A fallback is recognized only where the script asked for the command: a use outside
// the guarded branch is still flagged.
func TestFallbackGuardsOnlyItsBranch(t *testing.T) {
	src := "if command -v sha256sum >/dev/null; then\n  sha256sum a\nelse\n  sha256sum b\nfi\n"
	found, err := lint("x.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Line != 4 {
		t.Errorf("want one finding, on line 4 (the else branch), got %v", found)
	}
}

// Each finding names its line, and they come in the order of the lines.
func TestFindingsNameTheirLines(t *testing.T) {
	src := "x=1\ntimeout 1 a\ny=2\nsed -i s/a/b/ f && nproc\n"
	found, err := lint("x.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, f := range found {
		lines = append(lines, f.Line)
	}
	if len(lines) != 3 || lines[0] != 2 || lines[1] != 4 || lines[2] != 4 {
		t.Errorf("want findings on lines 2, 4 and 4, got %v", found)
	}
	if s := found[0].String(); !strings.HasPrefix(s, "2: timeout") || !strings.Contains(s, "; portable: ") {
		t.Errorf("a finding reads %q; want LINE: WHAT; portable: FIX", s)
	}
}

// A script bash cannot parse fails the lint, naming the file.
func TestUnparsableScriptFails(t *testing.T) {
	if _, err := lint("broken.sh", []byte("if then fi (\n")); err == nil || !strings.Contains(err.Error(), "broken.sh") {
		t.Errorf("want an error naming broken.sh, got %v", err)
	}
}

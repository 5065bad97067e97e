// Package stockmac builds a PATH that looks, to a script, like a stock Mac's: the GNU
// tools whose options macOS's BSD ones lack are replaced by stand-ins that refuse those
// options and behave as BSD's do where the two differ quietly (sed -i takes the next
// argument as the backup suffix, date prints %N as a literal N, wc pads its counts,
// base64 does not wrap its lines, xargs runs nothing on empty input), and the commands a
// Mac has not (timeout, setsid, ss, nproc, flock, sha256sum) are absent.
//
// Each stand-in is a bash script that checks its arguments and runs the real GNU tool:
// it needs nothing installed but what Linux has. Tests run the learner's commands with
// PATH=Build(dir) to prove that they work on a Mac without one.
//
// Where Debian's original-awk is installed, it is the PATH's awk: macOS's awk is that
// one, BWK's. When WORKSHOP_BASH32 names a bash 3.2 binary (macOS's /bin/bash is
// 3.2.57), it is the PATH's bash, and so the one `#!/usr/bin/env bash` and make's SHELL
// run.
package stockmac

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Absent are the commands a stock Mac does not have.
var Absent = []string{"timeout", "setsid", "ss", "nproc", "flock", "sha256sum"}

// standIns are the scripts that replace GNU tools, by name; %[1]s in each is the real
// tool's path. The prelude (below) defines illegal and refuse.
var standIns = map[string]string{
	// BSD sed's -i takes a suffix: attached (-i.bak) or the next argument (-i ''), so
	// `sed -i -E s/a/b/ f` backs f up as f-E and reads s/a/b/ as a basic RE. It has no
	// long options.
	"sed": `refuse "" "" '--*' "$@"
args=()
while (($# > 0)); do
  a=$1
  shift
  if [[ $a == -- ]]; then args+=(--); break; fi
  if [[ $a == -?* && $a != --* ]]; then
    rest=${a#-} out=-
    while [[ -n $rest ]]; do
      c=${rest:0:1} rest=${rest:1}
      if [[ $c == i ]]; then
        if [[ -z $rest ]]; then rest=${1-}; shift || illegal i; fi
        args+=("-i$rest")
        rest=
        continue
      fi
      out+=$c
      if [[ $c == [ef] ]]; then
        if [[ -n $rest ]]; then out+=$rest; rest=; else args+=("$out" "$1"); shift; out=-; fi
      fi
    done
    [[ $out == - ]] || args+=("$out")
  else
    args+=("$a")
  fi
done
exec %[1]s ${args[@]+"${args[@]}"} "$@"`,
	// BSD date has no %N (it prints a literal N) and no -d or long options.
	"date": `refuse "" d '--*' "$@"
args=()
for a in "$@"; do
  [[ $a == +* ]] && a=${a//%%N/N}
  args+=("$a")
done
exec %[1]s ${args[@]+"${args[@]}"}`,
	// BSD cp and mv have no long options, and no -t (target first), -T or -u.
	"cp": `refuse "" tTu '--*' "$@"
exec %[1]s "$@"`,
	"mv": `refuse "" tTu '--*' "$@"
exec %[1]s "$@"`,
	// macOS's base64 has no -w, and does not wrap its output.
	"base64": `refuse "" w '--wrap*' "$@"
for a in "$@"; do
  case $a in -d | -D | --decode) exec %[1]s -d ;; esac
done
out=$(%[1]s -w0 "$@") || exit
printf '%%s\n' "$out"`,
	// BSD wc pads each count to 8 columns: "       3" for wc -l <file.
	"wc": `out=$(%[1]s "$@") || exit
while IFS= read -r line; do
  set -- $line
  printed=
  for word in "$@"; do
    if [[ $word =~ ^[0-9]+$ ]]; then printed+=$(printf '%%8d' "$word"); else printed+=" $word"; fi
  done
  printf '%%s\n' "$printed"
done <<<"$out"`,
	// Apple's diff has no --color.
	"diff": `refuse "" "" '--color*' "$@"
exec %[1]s "$@"`,
	// BSD stat formats with -f, not -c, and has no long options.
	"stat": `refuse "" c '--*' "$@"
exec %[1]s "$@"`,
	// BSD grep has no -P.
	"grep": `refuse efmABCD P '--perl-regexp' "$@"
exec %[1]s "$@"`,
	// BSD xargs has no -r: it runs nothing on empty input anyway.
	"xargs": `opts=()
while (($# > 0)) && [[ $1 == -* ]]; do
  case $1 in
    -r* | --*) illegal "${1#-}" ;;
    -[IJLnPRsE]) opts+=("$1" "$2"); shift 2 ;;
    *) opts+=("$1"); shift ;;
  esac
done
input=$(mktemp)
trap 'rm -f "$input"' EXIT
cat >"$input"
[[ -s $input ]] || exit 0
%[1]s ${opts[@]+"${opts[@]}"} "$@" <"$input"`,
	// BSD readlink has no -f, -e or -m (macOS 12.3 added -f).
	"readlink": `refuse "" fem '--*' "$@"
exec %[1]s "$@"`,
	// macOS has shasum (Perl's), which Linux may lack: it runs GNU's shaNsum.
	"shasum": `alg=1
if [[ ${1-} == -a ]]; then alg=$2; shift 2; fi
exec %[1]s$alg"sum" "$@"`,
	// BSD find has no -printf.
	"find": `for a in "$@"; do
  case $a in -printf | -fprintf | -regextype) echo "find: $a: unknown primary or operator" >&2; exit 1 ;; esac
done
exec %[1]s "$@"`,
}

// prelude starts every stand-in.
const prelude = `#!%[1]s
# A stand-in for macOS's %[2]s (scripts/tools/internal/stockmac).
illegal() {
  echo "%[2]s: illegal option -- $1 (a stand-in for macOS's %[2]s)" >&2
  exit 64
}
# refuse VALUE_LETTERS LETTERS LONG ARGS... fails on an option among LETTERS in a cluster
# of short options (up to a letter of VALUE_LETTERS, whose value follows), or a long
# option that matches the pattern LONG, before --.
refuse() {
  local takes=$1 letters=$2 long=$3 a i c
  shift 3
  for a in "$@"; do
    [[ $a != -- ]] || return 0
    case $a in
      --*) [[ -z $long || $a != $long ]] || illegal "${a#--}" ;;
      -?*)
        for ((i = 1; i < ${#a}; i++)); do
          c=${a:i:1}
          [[ -z $letters || $letters != *"$c"* ]] || illegal "$c"
          [[ -z $takes || $takes != *"$c"* ]] || break
        done
        ;;
    esac
  done
}
`

// Build writes a folder of commands into dir and returns the PATH that holds them: the
// stand-ins, and links to every other command of the current PATH except those a Mac
// lacks (Absent).
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return "", err
	}
	// macOS's awk is the one true awk (BWK's), which Debian packages as original-awk;
	// where it is not installed, the PATH's awk stays (mawk or gawk).
	if bwk, err := exec.LookPath("original-awk"); err == nil {
		if err := os.Symlink(bwk, filepath.Join(bin, "awk")); err != nil {
			return "", err
		}
	}
	if bash32 := os.Getenv("WORKSHOP_BASH32"); bash32 != "" {
		if err := os.Symlink(bash32, filepath.Join(bin, "bash")); err != nil {
			return "", err
		}
	}
	for name, body := range standIns {
		real, err := exec.LookPath(name)
		if name == "shasum" {
			real, err = exec.LookPath("sha256sum")
			real = strings.TrimSuffix(real, "256sum")
		}
		if err != nil {
			return "", fmt.Errorf("the stand-in for %s runs the GNU one, and there is none on PATH: %w", name, err)
		}
		script := fmt.Sprintf(prelude, bash, name, name) + fmt.Sprintf(body, real) + "\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			return "", err
		}
	}
	absent := map[string]bool{}
	for _, name := range Absent {
		absent[name] = true
	}
	for _, folder := range filepath.SplitList(os.Getenv("PATH")) {
		entries, err := os.ReadDir(folder)
		if err != nil {
			continue // a folder of PATH that does not exist
		}
		for _, e := range entries {
			name := e.Name()
			if absent[name] || strings.HasPrefix(name, ".") {
				continue
			}
			path := filepath.Join(folder, name)
			if info, err := os.Stat(path); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
				continue
			}
			// The first of PATH wins, as it would; a stand-in is there already.
			if err := os.Symlink(path, filepath.Join(bin, name)); err != nil && !os.IsExist(err) {
				return "", err
			}
		}
	}
	return bin, nil
}

// Env is the current environment with PATH set to path.
func Env(path string) []string {
	env := []string{"PATH=" + path}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return env
}

package main

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// missing are commands a stock Mac does not have (GNU coreutils and util-linux ones, and
// Linux's ss), with what to use there instead.
var missing = map[string]string{
	"timeout":   "a background job killed after a deadline (or the Go tool's own timeout)",
	"setsid":    "set -m (job control) for a process group of its own, or do it in Go",
	"ss":        "lsof -nP -iTCP:PORT -sTCP:LISTEN where it exists, or try to connect to the port (bash's /dev/tcp)",
	"nproc":     "getconf _NPROCESSORS_ONLN",
	"flock":     "mkdir LOCKDIR as the lock (atomic), removed on exit",
	"sha256sum": "command -v sha256sum >/dev/null && sha256sum || shasum -a 256",
	"sha1sum":   "command -v sha1sum >/dev/null && sha1sum || shasum -a 1",
	"sha512sum": "command -v sha512sum >/dev/null && sha512sum || shasum -a 512",
	"md5sum":    "command -v md5sum >/dev/null && md5sum || md5 -r",
	"tac":       "tail -r where it exists, or awk '{l[NR] = $0} END {for (i = NR; i > 0; i--) print l[i]}'",
	"stdbuf":    "nothing: leave the buffering to the program, or flush in it",
	"numfmt":    "awk's printf",
	"mapfile":   "while IFS= read -r line; do a+=(\"$line\"); done <FILE (mapfile is bash 4)",
	"readarray": "while IFS= read -r line; do a+=(\"$line\"); done <FILE (readarray is bash 4)",
}

// call checks one simple command: a command a Mac lacks, an option only GNU's tools have.
// It looks through the commands that run another (xargs, find -exec, env, nice, exec,
// command).
func (l *linter) call(ws []*syntax.Word) {
	args := words(ws)
	// Shell code in a string, which bash runs as the script's own: a trap's, eval's,
	// bash -c's and sh -c's (a Mac's sh is its bash 3.2).
	switch {
	case len(args) > 1 && (args[0] == "trap" || args[0] == "eval"):
		l.nested(ws[1])
	case len(args) > 2 && (args[0] == "bash" || args[0] == "sh") && args[1] == "-c":
		l.nested(ws[2])
	}
	for len(args) > 0 {
		name := args[0]
		at := ws[0].Pos()
		if fix, ok := missing[name]; ok && !within(l.guards, name, at) {
			what := name + " is not on a stock Mac"
			if name == "mapfile" || name == "readarray" {
				what = name + " is bash 4"
			}
			l.add(at, what, fix)
		}
		if check, ok := optionChecks[name]; ok {
			for _, p := range check(args[1:]) {
				l.add(ws[1+p.arg].Pos(), p.what, p.fix)
			}
		}
		next := runs(args)
		if next <= 0 || next >= len(args) {
			return
		}
		ws, args = ws[next:], args[next:]
	}
}

// nested checks shell code written out in the word w as the script's own: a trap's
// commands run in the script's shell, with its arrays.
func (l *linter) nested(w *syntax.Word) {
	code := value(w)
	if strings.ContainsRune(code, 0) {
		return // built from expansions: unknown until it runs
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(code), "")
	if err != nil {
		l.add(w.Pos(), "the shell code in this string does not parse: "+err.Error(), "code bash can parse")
		return
	}
	inner := &linter{maybeEmpty: l.maybeEmpty, guards: commandGuards(file), arrayGuards: arrayGuards(file)}
	syntax.Walk(file, inner.visit)
	for _, f := range inner.found {
		f.Line += int(w.Pos().Line()) - 1
		l.found = append(l.found, f)
	}
}

// runs tells where, in a command that runs another, the other command starts: 0 when
// the command runs none.
func runs(args []string) int {
	skip := func(from int, withValue string) int {
		i := from
		for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" {
			if args[i] == "--" {
				return i + 1
			}
			if len(args[i]) == 2 && strings.ContainsRune(withValue, rune(args[i][1])) {
				i++
			}
			i++
		}
		return i
	}
	switch args[0] {
	case "xargs":
		return skip(1, "IJLnPRsEdSa")
	case "nice":
		return skip(1, "n")
	case "exec", "nohup", "sudo":
		return skip(1, "acu")
	case "command":
		if len(args) > 1 && (args[1] == "-v" || args[1] == "-V") {
			return 0
		}
		return skip(1, "")
	case "env":
		i := skip(1, "uSC")
		for i < len(args) && strings.Contains(args[i], "=") {
			i++
		}
		return i
	case "find":
		for i, a := range args {
			if a == "-exec" || a == "-execdir" || a == "-ok" {
				return i + 1
			}
		}
	}
	return 0
}

// A problem is one option of a call that a Mac's tool lacks: arg is its index among the
// command's arguments.
type problem struct {
	arg       int
	what, fix string
}

// optionChecks check the arguments of the tools whose GNU options a Mac's lack.
var optionChecks = map[string]func(args []string) []problem{
	"sed": func(args []string) []problem {
		var ps []problem
		eachOption(args, "ef", func(i int, short byte, long string) {
			switch {
			case long != "":
				ps = append(ps, problem{i, "sed --" + long + " is GNU sed's", "a short option BSD sed has too (-n, -E, -e, -i.bak)"})
			case short == 'i' && strings.HasSuffix(args[i], "i"):
				ps = append(ps, problem{i, "sed -i without a suffix: BSD sed takes the next argument as the backup suffix",
					"sed -i.bak ... FILE && rm FILE.bak, or sed ... FILE >FILE.new && mv FILE.new FILE"})
			case short == 'r':
				ps = append(ps, problem{i, "sed -r is GNU sed's", "sed -E"})
			case short == 'z' || short == 's' || short == 'u':
				ps = append(ps, problem{i, "sed -" + string(short) + " is GNU sed's", "another tool (awk, tr) for the same"})
			}
		}, "i")
		return ps
	},
	"date": func(args []string) []problem {
		var ps []problem
		for i, a := range args {
			if strings.HasPrefix(a, "+") && strings.Contains(a, "%N") {
				ps = append(ps, problem{i, "date's %N (nanoseconds) is GNU date's: BSD date prints a literal N",
					"whole seconds (date +%s, or bash's $SECONDS); measure finer times in Go"})
			}
		}
		eachOption(args, "", func(i int, short byte, long string) {
			if short == 'd' || long == "date" || strings.HasPrefix(long, "iso") || short == 'I' {
				ps = append(ps, problem{i, "date -d/--date/-I is GNU date's", "date -u +FORMAT for now; compute other dates in Go or awk"})
			}
		}, "")
		return ps
	},
	"base64": func(args []string) []problem {
		var ps []problem
		eachOption(args, "", func(i int, short byte, long string) {
			if short == 'w' || strings.HasPrefix(long, "wrap") {
				ps = append(ps, problem{i, "base64 -w is GNU base64's", "base64 <FILE | tr -d '\\n'"})
			}
		}, "w")
		return ps
	},
	"cp": copyOptions("cp"),
	"mv": copyOptions("mv"),
	"diff": func(args []string) []problem {
		var ps []problem
		eachOption(args, "", func(i int, short byte, long string) {
			if strings.HasPrefix(long, "color") {
				ps = append(ps, problem{i, "diff --color is GNU diff's", "plain diff -u"})
			}
		}, "")
		return ps
	},
	"stat": func(args []string) []problem {
		var ps []problem
		eachOption(args, "", func(i int, short byte, long string) {
			if short == 'c' || long != "" {
				ps = append(ps, problem{i, "stat -c/--format is GNU stat's (BSD stat has -f, with other formats)",
					"wc -c <FILE for a size, [[ FILE1 -nt FILE2 ]] to compare times, or ask Go"})
			}
		}, "c")
		return ps
	},
	"grep": func(args []string) []problem {
		var ps []problem
		eachOption(args, "efmABCD", func(i int, short byte, long string) {
			if short == 'P' || long == "perl-regexp" {
				ps = append(ps, problem{i, "grep -P (Perl regular expressions) is GNU grep's", "grep -E, with [[:space:]] for \\s and [0-9] for \\d"})
			}
		}, "")
		return ps
	},
	"xargs": func(args []string) []problem {
		var ps []problem
		eachOption(args[:runs(append([]string{"xargs"}, args...))-1], "IJLnPRsEdSa", func(i int, short byte, long string) {
			if short == 'r' || long == "no-run-if-empty" {
				ps = append(ps, problem{i, "xargs -r is GNU xargs'",
					"a loop (while IFS= read -r f; do ...; done), or a command that does nothing without arguments"})
			}
		}, "")
		return ps
	},
	"find": func(args []string) []problem {
		var ps []problem
		for i, a := range args {
			if a == "-exec" || a == "-execdir" || a == "-ok" {
				break
			}
			if a == "-printf" || a == "-fprintf" || a == "-regextype" {
				ps = append(ps, problem{i, "find " + a + " is GNU find's", "find ... -print, then sed or awk on the paths, or -exec"})
			}
		}
		return ps
	},
	"readlink": func(args []string) []problem {
		var ps []problem
		eachOption(args, "", func(i int, short byte, long string) {
			if short == 'f' || short == 'e' || short == 'm' || strings.HasPrefix(long, "canonicalize") {
				ps = append(ps, problem{i, "readlink -f/-e/-m is GNU readlink's (and macOS 12.3's)",
					`(cd "$(dirname "$p")" && echo "$(pwd -P)/$(basename "$p")")`})
			}
		}, "")
		return ps
	},
	"sort": func(args []string) []problem {
		var ps []problem
		eachOption(args, "ktoTS", func(i int, short byte, long string) {
			if short == 'V' || long == "version-sort" {
				ps = append(ps, problem{i, "sort -V is GNU sort's", "sort -t. -k1,1n -k2,2n -k3,3n"})
			}
		}, "")
		return ps
	},
	"wait": func(args []string) []problem {
		var ps []problem
		eachOption(args, "", func(i int, short byte, long string) {
			if short == 'n' || short == 'p' || short == 'f' {
				ps = append(ps, problem{i, "wait -" + string(short) + " is bash 4.3 or later",
					"keep the jobs' pids in an array, and wait for each (the oldest first), or poll them with kill -0"})
			}
		}, "")
		return ps
	},
	"shopt": func(args []string) []problem {
		var ps []problem
		for i, a := range args {
			if fix, ok := newShellOptions[a]; ok {
				ps = append(ps, problem{i, "shopt " + a + " is bash 4 or later: bash 3.2 stops at it", fix})
			}
		}
		return ps
	},
	"printf": func(args []string) []problem {
		for i, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if strings.Contains(a, "%(") && strings.Contains(a, ")T") {
				return []problem{{i, "printf's %(...)T is bash 4.2", "date +FORMAT"}}
			}
			return nil
		}
		return nil
	},
}

// newShellOptions are the shopt options bash 3.2 lacks.
var newShellOptions = map[string]string{
	"globstar":         "find for recursive matches",
	"lastpipe":         "a loop fed by < <(command) instead of command | loop",
	"inherit_errexit":  "check a command substitution's status: x=$(cmd) || exit",
	"autocd":           "cd",
	"checkjobs":        "nothing: it only warns at exit",
	"direxpand":        "nothing: it is interactive only",
	"dirspell":         "nothing: it is interactive only",
	"globasciiranges":  "[[:lower:]] and the like instead of ranges",
	"localvar_inherit": "pass the value",
}

func copyOptions(name string) func(args []string) []problem {
	return func(args []string) []problem {
		var ps []problem
		eachOption(args, "", func(i int, short byte, long string) {
			switch {
			case long != "":
				ps = append(ps, problem{i, name + " --" + long + ": BSD " + name + " has no long options",
					"its short options (-R, -p, -f); for --parents, mkdir -p the folder then " + name})
			case short == 't' || short == 'T':
				ps = append(ps, problem{i, name + " -" + string(short) + " is GNU " + name + "'s",
					name + " SOURCE... TARGET_DIR/ (the target last); for -T, remove the target first"})
			case short == 'u':
				ps = append(ps, problem{i, name + " -u is GNU " + name + "'s", "[[ SOURCE -nt TARGET ]] && " + name + " SOURCE TARGET"})
			}
		}, "")
		return ps
	}
}

// eachOption calls f for each option among args, up to "--": short for each letter of
// a cluster such as -rl (i: the argument's index), long for --name (without its =value).
// A letter of withValue takes the rest of its word, or the next word, as its value;
// one of attached takes only the rest of its word (sed -i.bak, base64 -w0).
func eachOption(args []string, withValue string, f func(i int, short byte, long string), attached string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return
		}
		if strings.HasPrefix(a, "--") {
			long, _, _ := strings.Cut(a[2:], "=")
			f(i, 0, long)
			continue
		}
		if len(a) < 2 || a[0] != '-' || strings.ContainsRune(a, 0) {
			continue
		}
		for j := 1; j < len(a); j++ {
			f(i, a[j], "")
			if strings.IndexByte(attached, a[j]) >= 0 {
				break
			}
			if strings.IndexByte(withValue, a[j]) >= 0 {
				if j == len(a)-1 {
					i++ // the value is the next word
				}
				break
			}
		}
	}
}

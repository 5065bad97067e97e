package main

import (
	"bytes"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A finding is one construct that bash 3.2 or a stock Mac's tools lack.
type finding struct {
	Line int
	What string // the construct, and why it fails on a Mac
	Fix  string // the portable form
}

func (f finding) String() string { return fmt.Sprintf("%d: %s; portable: %s", f.Line, f.What, f.Fix) }

// lint parses the bash script src (named name in its errors) and returns what in it
// bash 3.2 or a stock Mac's userland lacks, in the order of the lines.
func lint(name string, src []byte) ([]finding, error) {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), name)
	if err != nil {
		return nil, err
	}
	l := &linter{maybeEmpty: mayBeEmptyArrays(file)}
	l.guards = commandGuards(file)
	l.arrayGuards = arrayGuards(file)
	syntax.Walk(file, l.visit)
	sortFindings(l.found)
	return l.found, nil
}

type linter struct {
	found []finding
	// maybeEmpty names the arrays that the script may leave empty (mayBeEmptyArrays).
	maybeEmpty map[string]bool
	// guards are the stretches of the script that run only where a command exists
	// (commandGuards).
	guards []guard
	// arrayGuards are the stretches inside ${a[@]+...} (arrayGuards).
	arrayGuards []guard
}

// A guard is a stretch of the script, from one offset to another, that runs only when
// name exists (a command, or an array with elements).
type guard struct {
	name       string
	start, end uint
}

func within(guards []guard, name string, at syntax.Pos) bool {
	for _, g := range guards {
		if g.name == name && at.Offset() >= g.start && at.Offset() < g.end {
			return true
		}
	}
	return false
}

func (l *linter) add(at syntax.Pos, what, fix string) {
	l.found = append(l.found, finding{Line: int(at.Line()), What: what, Fix: fix})
}

func (l *linter) visit(node syntax.Node) bool {
	switch n := node.(type) {
	case *syntax.DeclClause:
		l.declaration(n)
	case *syntax.CallExpr:
		l.call(n.Args)
		for _, a := range n.Assigns {
			l.negativeIndex(a.Index)
		}
	case *syntax.ParamExp:
		l.parameter(n)
	case *syntax.CoprocClause:
		l.add(n.Pos(), "coproc is bash 4", "a background job writing to a file or a fifo (mkfifo)")
	case *syntax.Redirect:
		if n.Op == syntax.AppAll {
			l.add(n.Pos(), "&>> is bash 4", ">>FILE 2>&1")
		}
		if n.N != nil && strings.HasPrefix(n.N.Value, "{") {
			l.add(n.Pos(), "a {var}> redirection (a file descriptor bash picks) is bash 4.1", "a fixed descriptor: exec 3>FILE")
		}
	case *syntax.BinaryCmd:
		if n.Op == syntax.PipeAll {
			l.add(n.OpPos, "|& is bash 4", "2>&1 |")
		}
	case *syntax.CaseItem:
		switch n.Op {
		case syntax.Resume:
			l.add(n.OpPos, ";;& is bash 4", "end the item with ;; and test the other patterns in a case of their own")
		case syntax.Fallthrough:
			l.add(n.OpPos, ";& is bash 4", "end the item with ;; and repeat the next item's commands, or call a function from both")
		}
	case *syntax.DblQuoted:
		for _, part := range n.Parts {
			if sub, ok := part.(*syntax.CmdSubst); ok && endsInWc(sub.Stmts) {
				l.add(sub.Pos(), "a count of wc inside quotes: a Mac's wc pads it with spaces", `$(($(CMD | wc -l))), or the count unquoted`)
			}
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet {
			l.add(n.OpPos, "[[ -v NAME ]] is bash 4.2", `[[ -n ${NAME+set} ]]`)
		}
	}
	return true
}

// declaration checks declare, local, typeset and readonly's flags and subscripts.
func (l *linter) declaration(d *syntax.DeclClause) {
	for _, a := range d.Args {
		l.negativeIndex(a.Index)
		if !a.Naked || a.Value == nil {
			continue
		}
		flag := value(a.Value)
		if !strings.HasPrefix(flag, "-") {
			continue
		}
		for _, c := range flag[1:] {
			switch c {
			case 'A':
				l.add(a.Pos(), d.Variant.Value+" -A (an associative array) is bash 4",
					`a plain variable per key, or a string of " key " words tested with [[ $seen == *" $key "* ]]`)
			case 'n':
				l.add(a.Pos(), d.Variant.Value+" -n (a name reference) is bash 4.3", "pass the value, or print the result and capture it with $(...)")
			case 'g':
				l.add(a.Pos(), d.Variant.Value+" -g is bash 4.2", "assign the global without declare, outside any local of the same name")
			case 'l', 'u':
				l.add(a.Pos(), d.Variant.Value+" -"+string(c)+" (case conversion) is bash 4", `$(printf '%s' "$x" | tr '[:upper:]' '[:lower:]')`)
			}
		}
	}
}

// bash4Variables are variables bash 3.2 does not set: under set -u, reading one fails.
var bash4Variables = map[string]string{
	"BASHPID":        "$$ in the main shell; in a subshell, its pid is the parent of a command it runs: $(sh -c 'echo $PPID')",
	"EPOCHSECONDS":   "$(date +%s)",
	"EPOCHREALTIME":  "$(date +%s) (whole seconds); measure finer times in Go",
	"SRANDOM":        "$RANDOM",
	"BASH_ARGV0":     "$0",
	"READLINE_POINT": "nothing: bind -x is interactive only",
}

// caseOps are the ${x^} ${x^^} ${x,} ${x,,} case modifications and ${x@Q}-style
// transformations.
var caseOps = map[syntax.ParExpOperator]string{
	syntax.UpperFirst: "^", syntax.UpperAll: "^^", syntax.LowerFirst: ",", syntax.LowerAll: ",,",
}

func (l *linter) parameter(p *syntax.ParamExp) {
	if p.Param == nil {
		return
	}
	name := p.Param.Value
	if fix, ok := bash4Variables[name]; ok && p.Index == nil {
		l.add(p.Pos(), "$"+name+" is bash 4 or later", fix)
	}
	if p.Exp != nil {
		if op, ok := caseOps[p.Exp.Op]; ok {
			l.add(p.Pos(), "${"+name+op+"} (case modification) is bash 4",
				`$(printf '%s' "$`+name+`" | tr '[:upper:]' '[:lower:]') (or '[:lower:]' '[:upper:]')`)
		}
		if p.Exp.Op == syntax.OtherParamOps {
			l.add(p.Pos(), "${"+name+"@...} (a transformation) is bash 4.4", `printf '%q' "$`+name+`" for @Q`)
		}
	}
	l.negativeIndex(p.Index)
	if p.Slice != nil && negative(p.Slice.Length) {
		l.add(p.Pos(), "a negative length in ${"+name+":offset:-n} is bash 4.2", "${"+name+":offset:${#"+name+"}-offset-n}")
	}
	l.emptyArray(p)
}

// negativeIndex flags a[-1], which counts from the end only in bash 4.3 and later.
func (l *linter) negativeIndex(index syntax.ArithmExpr) {
	if negative(index) {
		l.add(index.Pos(), "a negative subscript (from the array's end) is bash 4.3", `${a[${#a[@]}-1]} for the last element`)
	}
}

// negative tells whether the arithmetic expression starts with a minus sign.
func negative(e syntax.ArithmExpr) bool {
	switch e := e.(type) {
	case *syntax.UnaryArithm:
		return e.Op == syntax.Minus && !e.Post
	case *syntax.Word:
		return strings.HasPrefix(value(e), "-")
	case *syntax.BinaryArithm:
		return negative(e.X)
	case *syntax.ParenArithm:
		return negative(e.X)
	}
	return false
}

// emptyArray flags "${a[@]}" of an array that may be empty: under set -u, bash before
// 4.4 says "a[@]: unbound variable" for it. ${a[@]+"${a[@]}"} expands to nothing
// instead; ${#a[@]} is 0 and ${!a[@]} nothing, in bash 3.2 too.
func (l *linter) emptyArray(p *syntax.ParamExp) {
	name := p.Param.Value
	if !l.maybeEmpty[name] || !allElements(p.Index) || p.Length || p.Excl {
		return
	}
	if p.Exp != nil && guardOps[p.Exp.Op] {
		return
	}
	if within(l.arrayGuards, name, p.Pos()) {
		return
	}
	l.add(p.Pos(), "${"+name+"[@]} of an array that may be empty fails under set -u in bash before 4.4",
		`${`+name+`[@]+"${`+name+`[@]}"}`)
}

// guardOps are the operators under which an unset or empty array expands without error.
var guardOps = map[syntax.ParExpOperator]bool{
	syntax.AlternateUnset: true, syntax.AlternateUnsetOrNull: true,
	syntax.DefaultUnset: true, syntax.DefaultUnsetOrNull: true,
}

// allElements tells whether a subscript is [@] or [*].
func allElements(index syntax.ArithmExpr) bool {
	w, ok := index.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

// expandsAll tells whether part is an expansion of all the arguments ($@) or all of an
// array's elements (${a[@]}, ${a[*]}).
func expandsAll(part syntax.WordPart) bool {
	pe, ok := part.(*syntax.ParamExp)
	return ok && pe.Param != nil && (pe.Param.Value == "@" || allElements(pe.Index))
}

// arrayGuards finds every ${a[@]+WORD}: in WORD, a has elements.
func arrayGuards(file *syntax.File) []guard {
	var guards []guard
	syntax.Walk(file, func(node syntax.Node) bool {
		if p, ok := node.(*syntax.ParamExp); ok && p.Param != nil && allElements(p.Index) &&
			p.Exp != nil && guardOps[p.Exp.Op] && p.Exp.Word != nil {
			guards = append(guards, guard{p.Param.Value, p.Exp.Word.Pos().Offset(), p.Exp.Word.End().Offset()})
		}
		return true
	})
	return guards
}

// mayBeEmptyArrays names every array the script declares without elements (a=(),
// local -a a), or gives only words that may expand to nothing (a=("$@"), a=($(cmd))).
// The rule is by name, for the whole file: an array that is empty at one place and
// filled at another is guarded at every expansion.
func mayBeEmptyArrays(file *syntax.File) map[string]bool {
	empty := map[string]bool{}
	check := func(a *syntax.Assign) {
		if a.Name == nil || a.Append || a.Index != nil {
			return
		}
		if a.Array != nil && mayBeEmpty(a.Array) {
			empty[a.Name.Value] = true
		}
	}
	syntax.Walk(file, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.CallExpr:
			for _, a := range n.Assigns {
				check(a)
			}
		case *syntax.DeclClause:
			isArray := false
			for _, a := range n.Args {
				if f := value(a.Value); a.Naked && a.Value != nil && strings.HasPrefix(f, "-") && strings.Contains(f, "a") {
					isArray = true
					continue
				}
				check(a)
				if isArray && a.Naked && a.Name != nil {
					empty[a.Name.Value] = true
				}
			}
		}
		return true
	})
	return empty
}

func mayBeEmpty(a *syntax.ArrayExpr) bool {
	for _, e := range a.Elems {
		if e.Index != nil || yieldsAWord(e.Value) {
			return false
		}
	}
	return true
}

// yieldsAWord tells whether the word always expands to at least one field: it has
// literal text, or a quoted part that is not an expansion of all of an array's
// elements or all the arguments.
func yieldsAWord(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if p.Value != "" {
				return true
			}
		case *syntax.SglQuoted:
			return true
		case *syntax.DblQuoted:
			if len(p.Parts) != 1 || !expandsAll(p.Parts[0]) {
				return true
			}
		}
	}
	return false
}

// commandGuards finds the stretches that run only when a command exists: the then-branch
// of `if command -v NAME ...`, and what follows `command -v NAME ... &&`. In them, NAME
// may be a command a Mac lacks: the script has a fallback for it elsewhere.
func commandGuards(file *syntax.File) []guard {
	var guards []guard
	syntax.Walk(file, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.IfClause:
			if len(n.Then) == 0 {
				break
			}
			for _, name := range probed(n.Cond) {
				guards = append(guards, guard{name, n.Then[0].Pos().Offset(), n.Then[len(n.Then)-1].End().Offset()})
			}
		case *syntax.BinaryCmd:
			if n.Op != syntax.AndStmt {
				break
			}
			for _, name := range probed([]*syntax.Stmt{n.X}) {
				guards = append(guards, guard{name, n.Y.Pos().Offset(), n.Y.End().Offset()})
			}
		}
		return true
	})
	return guards
}

// probed lists the commands that `command -v NAME` (or type, hash, which) asks for in
// the statements.
func probed(stmts []*syntax.Stmt) []string {
	var names []string
	for _, s := range stmts {
		syntax.Walk(s, func(node syntax.Node) bool {
			c, ok := node.(*syntax.CallExpr)
			if !ok {
				return true
			}
			args := words(c.Args)
			switch {
			case len(args) >= 3 && args[0] == "command" && (args[1] == "-v" || args[1] == "-V"):
				names = append(names, args[2:]...)
			case len(args) >= 2 && (args[0] == "type" || args[0] == "hash" || args[0] == "which"):
				names = append(names, args[1:]...)
			}
			return true
		})
	}
	return names
}

// words gives the value of each word: its text with quotes removed, and a NUL for each
// expansion, whose value the lint cannot know.
func words(ws []*syntax.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = value(w)
	}
	return out
}

func value(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); ok {
					b.WriteString(lit.Value)
				} else {
					b.WriteByte(0)
				}
			}
		default:
			b.WriteByte(0)
		}
	}
	return b.String()
}

// endsInWc says whether the last command of stmts, or of its last pipeline, is wc.
func endsInWc(stmts []*syntax.Stmt) bool {
	if len(stmts) == 0 {
		return false
	}
	cmd := stmts[len(stmts)-1].Cmd
	for {
		pipe, ok := cmd.(*syntax.BinaryCmd)
		if !ok || pipe.Op != syntax.Pipe {
			break
		}
		cmd = pipe.Y.Cmd
	}
	call, ok := cmd.(*syntax.CallExpr)
	return ok && len(call.Args) > 0 && value(call.Args[0]) == "wc"
}

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A mistake block marks code that learners often get wrong, and how they get it wrong,
// so that a maintainer check can make the mistake and see the tests catch it:
//
//	//mistake:no-owner-reference no controller OwnerReference
//	if err := controllerutil.SetControllerReference(ip, pod, r.Scheme); err != nil {
//		return nil, err
//	}
//	//mistake:instead return pod, nil     (optional: lines that stand there instead)
//	//mistake:end
//
// The words after the name are what the output of the failing tests must contain: the
// message that tells a learner what they did. Blocks with the same name, in one file or
// several, are one mistake, made together. Generated stages and lessons never have the
// markers; -mistake NAME writes a stage with the mistake made.
//
// A mistake belongs to the stage of the innermost stage block around it, or to the
// track's first stage, like a lesson block: that stage's lesson is where it is made.

const (
	mistakeMarker  = "mistake:"
	insteadKeyword = "instead"
)

// A mistake is one named mistake of a track, as -list-mistakes prints it.
type mistake struct {
	name  string
	stage int
	want  string
	where string // file:line of its first block
}

// makeMistake drops the markers of every mistake block of src and, for the blocks named
// mistake, the block's lines too, writing its instead lines in their place. It reports
// whether it made the mistake.
func makeMistake(src []byte, comment, name string) ([]byte, bool, error) {
	var out bytes.Buffer
	marker := comment + mistakeMarker
	open := "" // the name of the open block
	made := false
	scanner := bufio.NewScanner(bytes.NewReader(src))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; scanner.Scan(); line++ {
		text := scanner.Text()
		trimmed := strings.TrimSpace(text)
		if !strings.HasPrefix(trimmed, marker) {
			if open == "" || open != name {
				out.WriteString(text + "\n")
			}
			continue
		}
		word, rest, _ := strings.Cut(strings.TrimPrefix(trimmed, marker), " ")
		indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
		switch {
		case word == "end":
			if open == "" {
				return nil, false, fmt.Errorf("%d: %send without a block to close", line, marker)
			}
			open = ""
		case word == insteadKeyword:
			if open == "" {
				return nil, false, fmt.Errorf("%d: %s%s outside a block: it says what stands there when the mistake is made", line, marker, insteadKeyword)
			}
			if open == name {
				out.WriteString(indent + rest + "\n")
			}
		default:
			if open != "" {
				return nil, false, fmt.Errorf("%d: %s%s inside the block of %s: close it with %send first", line, marker, word, open, marker)
			}
			if word == "" || strings.TrimSpace(rest) == "" {
				return nil, false, fmt.Errorf("%d: %q: want %sNAME and the words the failing tests must print", line, trimmed, marker)
			}
			open = word
			made = made || word == name
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, false, err
	}
	if open != "" {
		return nil, false, fmt.Errorf(" the %s%s block is not closed: add %send", marker, open, marker)
	}
	return out.Bytes(), made, nil
}

// listMistakes returns the mistakes of the track whose source is in dir, by stage and name.
func listMistakes(dir string, first int) ([]mistake, error) {
	found := map[string]*mistake{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		var blocks []int // the stage of each open stage block
		scanner := bufio.NewScanner(bytes.NewReader(src))
		scanner.Buffer(make([]byte, 1<<20), 1<<20)
		for line := 1; scanner.Scan(); line++ {
			trimmed := strings.TrimSpace(scanner.Text())
			if word, ok := strings.CutPrefix(trimmed, "//stage:"); ok {
				if n, err := strconv.Atoi(word); err == nil {
					blocks = append(blocks, n)
				} else if word == "end" && len(blocks) > 0 {
					blocks = blocks[:len(blocks)-1]
				}
				continue
			}
			word, rest, _ := strings.Cut(strings.TrimPrefix(trimmed, "//"+mistakeMarker), " ")
			if !strings.HasPrefix(trimmed, "//"+mistakeMarker) || word == "end" || word == insteadKeyword {
				continue
			}
			stage := first
			if len(blocks) > 0 {
				stage = blocks[len(blocks)-1]
			}
			m := mistake{name: word, stage: stage, want: strings.TrimSpace(rest), where: fmt.Sprintf("%s:%d", rel, line)}
			if seen, ok := found[word]; ok {
				if seen.stage != m.stage || seen.want != m.want {
					return fmt.Errorf("%s: mistake %s is also at %s, with another stage or message: blocks of one mistake must agree", m.where, word, seen.where)
				}
				continue
			}
			found[word] = &m
		}
		return scanner.Err()
	})
	if err != nil {
		return nil, err
	}
	list := make([]mistake, 0, len(found))
	for _, m := range found {
		list = append(list, *m)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].stage != list[j].stage {
			return list[i].stage < list[j].stage
		}
		return list[i].name < list[j].name
	})
	return list, nil
}

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A track is one operator taught over several stages. Its last solution is the source of
// every earlier stage: stage markers say from which stage a block of lines exists, and
// what stood there before.
//
//	//stage:7                       the lines up to //stage:end exist from stage 7 on
//	new code
//	//stage:old earlier code        this line (without the marker) exists before stage 7
//	//stage:end
//
// YAML files, Dockerfiles and other files with # comments use #stage:7, #stage:old and
// #stage:end. Blocks nest. A file that is empty in a stage does not exist in that stage,
// so a file that first appears in stage 7 is wholly inside a //stage:7 block.
//
// In Go files keep the markers out of doc comments: gofmt moves a directive-like line
// such as //stage:2 to the end of the doc comment it stands in. Put the marker and a blank
// line above the doc comment instead, and the old declaration's doc in //stage:old lines.
//
// A //lesson: block belongs to the stage of the innermost stage block around it, or to the
// track's first stage. Stage N keeps the lesson markers of its own blocks, so that lesson N
// is generated from it; the blocks of earlier lessons are plain code by then.

// generatedFiles are written by controller-gen (scripts/generate.sh), which runs on every
// stage after it is written: copying the source's would leave files of later stages behind.
func isGeneratedFile(rel string) bool {
	rel = filepath.ToSlash(rel)
	return filepath.Base(rel) == "zz_generated.deepcopy.go" ||
		strings.HasPrefix(rel, "config/crd/bases/") ||
		rel == "config/rbac/role.yaml" ||
		rel == "config/webhook/manifests.yaml"
}

// generateStage writes stage `stage` of the track whose source (last solution) is in
// from, into to, which it empties first. first is the track's first stage. With a
// mistake's name, the stage has that mistake made (see mistake.go).
func generateStage(from, to string, first, stage int, mistake string) error {
	fromMod, toMod, err := modulePaths(from, to)
	if err != nil {
		return err
	}
	if filepath.Clean(from) == filepath.Clean(to) {
		return fmt.Errorf("the stage would replace its own source %s", from)
	}
	if err := os.RemoveAll(to); err != nil {
		return err
	}
	made := false
	err = filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		if isGeneratedFile(rel) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, madeHere, err := stageFile(path, src, first, stage, fromMod, toMod, mistake)
		if err != nil || out == nil {
			return err
		}
		made = made || madeHere
		info, err := d.Info()
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, out, info.Mode().Perm())
	})
	if err == nil && mistake != "" && !made {
		return fmt.Errorf("no //%s%s block in stage %d of %s", mistakeMarker, mistake, stage, from)
	}
	return err
}

// stageFile returns one file of the source as it is in the stage, or nil when the file
// does not exist in that stage. It reports whether the mistake changed the file.
func stageFile(path string, src []byte, first, stage int, fromMod, toMod, mistake string) ([]byte, bool, error) {
	comment := "#"
	if strings.HasSuffix(path, ".go") {
		comment = "//"
	}
	out, changed, err := selectStageWith(src, comment, first, stage, mistake)
	if err != nil {
		return nil, false, fmt.Errorf("%s:%w", path, err)
	}
	made := false
	if mistake != "" {
		// Made only if the stage differs from the one without it: the mistake's lines may
		// belong to a later stage.
		right, _, err := selectStageWith(src, comment, first, stage, "")
		if err != nil {
			return nil, false, fmt.Errorf("%s:%w", path, err)
		}
		made = !bytes.Equal(out, right)
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, made, nil
	}
	if comment == "#" {
		return bytes.ReplaceAll(out, []byte(fromMod), []byte(toMod)), made, nil
	}
	out, err = formatGo(path, out, changed || made, fromMod, toMod)
	return out, made, err
}

// selectStageWith removes the mistake markers of src, making the named mistake, then
// keeps the lines that exist in the stage.
func selectStageWith(src []byte, comment string, first, stage int, mistake string) ([]byte, bool, error) {
	src, _, err := makeMistake(src, comment, mistake)
	if err != nil {
		return nil, false, err
	}
	return selectStage(src, comment, first, stage)
}

// selectStage keeps the lines of src that exist in the stage. It reports whether it
// changed anything but the markers.
func selectStage(src []byte, comment string, first, stage int) ([]byte, bool, error) {
	var (
		out      bytes.Buffer
		blocks   []int // the stage of each open block, innermost last
		inactive int   // how many open blocks start after the stage
		lesson   = 0   // the stage of the open lesson block, 0 outside one
		changed  bool
		previous string // the line before, trimmed
	)
	marker := comment + "stage:"
	todoMarker, _, endMarker, lessonMarker := lessonMarkers(comment)
	scanner := bufio.NewScanner(bytes.NewReader(src))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; scanner.Scan(); line++ {
		text := scanner.Text()
		trimmed := strings.TrimSpace(text)
		indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
		word, rest, _ := strings.Cut(strings.TrimPrefix(trimmed, marker), " ")
		if comment == "//" && strings.HasPrefix(trimmed, marker) && previous == "//" {
			return nil, false, fmt.Errorf("%d: %s stands in a doc comment, where gofmt moves it to the end: put it above the doc comment, with a blank line between", line, trimmed)
		}
		previous = trimmed
		switch {
		case !strings.HasPrefix(trimmed, marker):
			// Not a stage marker: below.
		case word == "end":
			if len(blocks) == 0 {
				return nil, false, fmt.Errorf("%d: %send without a block to close", line, marker)
			}
			if blocks[len(blocks)-1] > stage {
				inactive--
			}
			blocks = blocks[:len(blocks)-1]
			continue
		case word == "old":
			if len(blocks) == 0 {
				return nil, false, fmt.Errorf("%d: %sold outside a block: it says what stood there before the block's stage", line, marker)
			}
			// Before the innermost block's stage, while every outer block exists.
			if blocks[len(blocks)-1] > stage && inactive == 1 {
				out.WriteString(indent + rest + "\n")
				changed = true
			}
			continue
		default:
			n, err := strconv.Atoi(word)
			if err != nil || rest != "" {
				return nil, false, fmt.Errorf("%d: unknown marker %q (want %sN, %sold or %send)", line, trimmed, marker, marker, marker)
			}
			if n <= first {
				return nil, false, fmt.Errorf("%d: %s%d: the track starts at stage %d, so every line exists from then; mark only what comes later", line, marker, n, first)
			}
			if len(blocks) > 0 && n < blocks[len(blocks)-1] {
				return nil, false, fmt.Errorf("%d: %s%d inside a block of stage %d: an inner block cannot exist earlier than the one around it", line, marker, n, blocks[len(blocks)-1])
			}
			blocks = append(blocks, n)
			if n > stage {
				inactive++
			}
			continue
		}
		if inactive > 0 {
			changed = true
			continue
		}
		// A line of this stage. Lesson markers stay only in their own stage's blocks.
		if strings.HasPrefix(trimmed, lessonMarker) {
			own := first
			if len(blocks) > 0 {
				own = blocks[len(blocks)-1]
			}
			switch {
			case strings.HasPrefix(trimmed, todoMarker) && lesson == 0:
				lesson = own
			case strings.HasPrefix(trimmed, endMarker):
				own, lesson = lesson, 0
			case lesson != 0:
				own = lesson
			}
			if own != stage {
				changed = true // an earlier lesson's marker or stub: its code is plain code by now
				continue
			}
		}
		out.WriteString(text + "\n")
	}
	if err := scanner.Err(); err != nil {
		return nil, false, err
	}
	if len(blocks) != 0 {
		return nil, false, fmt.Errorf(" a %s%d block is not closed: add %send", marker, blocks[len(blocks)-1], marker)
	}
	return out.Bytes(), changed, nil
}

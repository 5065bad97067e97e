package main

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A track's source is its last stage, with a few markers that say what the earlier
// stages and the lessons have instead. In Go files the markers start with //, in YAML
// files, Dockerfiles and other files with # comments, with #.
//
//	//stage:7                  the lines up to //stage:end exist from stage 7 on
//	new code
//	//stage:old earlier code   stands there (without the marker) before stage 7
//	//stage:end
//
//	//lesson:5.3               task 3 of lesson 5 is written here (its text: lessons.yaml)
//	//lesson:stub return nil   what lesson 5 has instead of the code, under the TODO
//	the code the learner writes
//	//lesson:end
//
// A lesson block is also a stage block: its code exists from its lesson on, and
// //stage:old lines inside it say what stood there before. In its own lesson the code is
// replaced by the task's TODO text and the stub, or without a stub by those old lines:
// the learner starts from the solution before. From its solution on it is plain code.
// A task written in several places names the others: //lesson:5.3 NAME, with NAME's
// text under the task's `also` in lessons.yaml. Blocks nest; a file that is empty in a
// stage does not exist in it, and a file that enters the track whole in a later lesson
// is listed under that lesson's `files` instead of being wrapped in a block. A lesson that
// moves the code to new words (a new API version: appsv2 for appsv1) lists them under its
// `renames`: the stages before it read the old words. A lesson that rewrites a file
// whole, or removes it, lists it under its `replaces`, and the file as the stages before
// it have it, markers and all, stays in the track as _before<N>/<file> (N the lesson's
// number): Go and controller-gen skip a folder whose name starts with _, so the track's
// module holds only its last stage, and the earlier version is compiled and tested in
// the earlier solutions. A rewrite costs no //stage:old line.
//
// Markers do not go in doc comments: gofmt moves a directive-like line such as
// //stage:7 to the end of the doc comment it stands in.

var (
	stageMarker  = regexp.MustCompile(`^stage:(\d+)$`)
	lessonMarker = regexp.MustCompile(`^lesson:(\d+)\.(\d+)(?: ([a-z][a-z0-9-]*))?$`)
)

// What a rendering writes: stage Stage's solution, or with Lesson its lesson, where the
// tasks numbered up to Done stay solved (the maintainers' check that each task's tests
// turn green with it).
type target struct {
	Stage  int
	Lesson bool
	Done   int
}

// A fence is where one place of a task stands in a rendered lesson.
type fence struct {
	Lesson, Task int
	Place        string // empty for the task's main place
	Line         int    // the line of its TODO in the lesson, or of its marker in the source
}

// A frame is an open block: a stage block, or a lesson block (which is one of its
// lesson's stage too).
type frame struct {
	stage int
	task  int    // a lesson block's task, 0 for a stage block
	place string // a lesson block's place
	line  int
	stub  bool // a lesson block has //lesson:stub lines
	old   bool // a block has //stage:old lines
}

// texts gives a task's TODO text for a place: the TODO line's words, then the lines below.
type texts func(lesson, task int, place string) (title string, lines []string, err error)

// render writes one file of the source as the target has it. It returns nil when the file
// does not exist in the target, whether anything but markers was left out or put in
// (changed), and the fences of the lesson's tasks it wrote.
func render(src []byte, comment string, first int, t target, text texts) (out []byte, changed bool, fences []fence, err error) {
	var (
		buf    bytes.Buffer
		frames []frame
		lineNo int // lines written
		prev   string
	)
	// shown says whether the lines of the open blocks exist in the target: every block
	// exists in its stage, and none is a lesson block replaced by its TODO.
	shown := func(frames []frame) bool {
		for _, f := range frames {
			if f.stage > t.Stage || replaced(f, t) {
				return false
			}
		}
		return true
	}
	write := func(s string) {
		buf.WriteString(s + "\n")
		lineNo++
	}
	scanner := bufio.NewScanner(bytes.NewReader(src))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; scanner.Scan(); n++ {
		line := scanner.Text()
		trimmed := strings.TrimSpace(line)
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		marker, isMarker := strings.CutPrefix(trimmed, comment)
		isMarker = isMarker && (strings.HasPrefix(marker, "stage:") || strings.HasPrefix(marker, "lesson:"))
		if isMarker && comment == "//" && prev == "//" && strings.HasPrefix(marker, "stage:") {
			return nil, false, nil, fmt.Errorf("%d: %s stands in a doc comment, where gofmt moves it to the end: put it above the doc comment, with a blank line between", n, trimmed)
		}
		prev = trimmed
		if !isMarker {
			if shown(frames) {
				write(line)
			} else {
				changed = true
			}
			continue
		}
		outer := shown(frames) // the blocks around this marker's line
		word, rest, _ := strings.Cut(marker, " ")
		switch {
		case stageMarker.MatchString(marker):
			s, _ := strconv.Atoi(stageMarker.FindStringSubmatch(marker)[1])
			if err := checkOpen(frames, s, first, trimmed); err != nil {
				return nil, false, nil, fmt.Errorf("%d: %w", n, err)
			}
			frames = append(frames, frame{stage: s, line: n})
		case lessonMarker.MatchString(marker):
			m := lessonMarker.FindStringSubmatch(marker)
			lesson, _ := strconv.Atoi(m[1])
			task, _ := strconv.Atoi(m[2])
			for _, f := range frames {
				if f.task > 0 {
					return nil, false, nil, fmt.Errorf("%d: %s inside the block of task %d.%d (line %d): close that one with %slesson:end first", n, trimmed, f.stage, f.task, f.line, comment)
				}
			}
			if lesson < first {
				return nil, false, nil, fmt.Errorf("%d: %s: the track starts at lesson %d", n, trimmed, first)
			}
			if len(frames) > 0 && lesson < frames[len(frames)-1].stage {
				return nil, false, nil, fmt.Errorf("%d: %s inside a block of stage %d: the code of lesson %d would not exist in its own lesson", n, trimmed, frames[len(frames)-1].stage, lesson)
			}
			f := frame{stage: lesson, task: task, place: m[3], line: n}
			frames = append(frames, f)
			if !outer || lesson != t.Stage {
				break
			}
			fences = append(fences, fence{Lesson: lesson, Task: task, Place: f.place, Line: lineNo + 1})
			if replaced(f, t) {
				title, lines, err := text(lesson, task, f.place)
				if err != nil {
					return nil, false, nil, fmt.Errorf("%d: %w", n, err)
				}
				write(fmt.Sprintf("%s%s TODO(%d): %s", indent, comment, task, title))
				for _, l := range lines {
					write(strings.TrimRight(indent+comment+" "+l, " "))
				}
				changed = true
			}
		case word == "stage:end" || word == "lesson:end":
			want := "stage:end"
			if len(frames) > 0 && frames[len(frames)-1].task > 0 {
				want = "lesson:end"
			}
			if len(frames) == 0 || word != want {
				return nil, false, nil, fmt.Errorf("%d: %s without a block to close (want %s%s)", n, trimmed, comment, want)
			}
			frames = frames[:len(frames)-1]
		case word == "stage:old":
			if len(frames) == 0 || frames[len(frames)-1].stage == first {
				return nil, false, nil, fmt.Errorf("%d: %s outside a block of a later stage: it says what stood there before the block's stage", n, trimmed)
			}
			inner := &frames[len(frames)-1]
			inner.old = true
			// Before the block's stage; and in a lesson block's own lesson, without a
			// stub, what the learner had before is what they start from.
			if (inner.stage > t.Stage || replaced(*inner, t) && !inner.stub) && shown(frames[:len(frames)-1]) {
				write(indent + rest)
				changed = true
			}
		case word == "lesson:stub":
			if len(frames) == 0 || frames[len(frames)-1].task == 0 {
				return nil, false, nil, fmt.Errorf("%d: %s outside a lesson block: it is what the lesson has instead of the block's code", n, trimmed)
			}
			inner := &frames[len(frames)-1]
			if inner.old {
				return nil, false, nil, fmt.Errorf("%d: %s after %sstage:old lines: a block's stub comes first, right under its %slesson: line", n, trimmed, comment, comment)
			}
			inner.stub = true
			if replaced(*inner, t) && shown(frames[:len(frames)-1]) {
				write(indent + rest)
			}
		default:
			return nil, false, nil, fmt.Errorf("%d: unknown marker %q (want %sstage:N, %sstage:old, %sstage:end, %slesson:N.K, %slesson:stub or %slesson:end)",
				n, trimmed, comment, comment, comment, comment, comment, comment)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, false, nil, err
	}
	if len(frames) > 0 {
		f := frames[len(frames)-1]
		return nil, false, nil, fmt.Errorf("%d: this block is not closed", f.line)
	}
	if len(bytes.TrimSpace(buf.Bytes())) == 0 {
		return nil, changed, fences, nil
	}
	return buf.Bytes(), changed, fences, nil
}

// replaced says whether a lesson block's code gives way to its TODO and stub in the target.
func replaced(f frame, t target) bool {
	return f.task > 0 && t.Lesson && f.stage == t.Stage && f.task > t.Done
}

// checkOpen checks a new stage block against the blocks around it.
func checkOpen(frames []frame, stage, first int, marker string) error {
	if stage <= first {
		return fmt.Errorf("%s: the track starts at stage %d, so every line exists from then; mark only what comes later", marker, first)
	}
	if len(frames) > 0 && stage < frames[len(frames)-1].stage {
		return fmt.Errorf("%s inside a block of stage %d: an inner block cannot exist earlier than the one around it", marker, frames[len(frames)-1].stage)
	}
	return nil
}

// commentOf returns how a file's comments start: // in Go files, # in the others.
func commentOf(rel string) string {
	if strings.HasSuffix(rel, ".go") {
		return "//"
	}
	return "#"
}

package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

// workshop mistakes [TRACK] makes every marked mistake of the tracks' lessons.yaml (of
// TRACK's, or of every track's), JOBS at a time, each in a scratch checkout of its own,
// and runs the stage's tests as make check-N does, with the tests of the tasks up to the
// mistake's (all of them, and the others, for a mistake of no task): the checklist's
// failing row is what a learner reads first, so it must show the mistake's words, under
// the task the mistake belongs to (any row, or a test of no task, for a mistake of none).
// A capstone's mistakes (a lesson that starts empty) run only when its track is named:
// each builds a manager and starts a control plane of its own, about a minute apiece.
func mistakesCommand(root string, args []string) error {
	c, track, indexed, err := prepareChecks(root, "mistakes", args)
	if err != nil {
		return err
	}
	mistakes, err := readMistakeRows(c.lessongen, root, track)
	if err != nil {
		return err
	}
	if track == "" {
		mistakes = withoutCapstones(mistakes, indexed)
	}
	if len(mistakes) == 0 {
		return fmt.Errorf("no mistakes in %s's lessons.yaml", cmp.Or(track, "any track"))
	}
	results, err := mistakesResults(root, track)
	if err != nil {
		return err
	}
	say("Making %d marked mistakes, each in a scratch copy of its stage, %d at a time (logs: %s)", len(mistakes), jobs(), rel(root, results))
	inParallel(len(mistakes), func(i int) {
		m := mistakes[i]
		if err := c.mistake(results, lessonOf(indexed, m.folder), m); err != nil {
			appendLog(m.log(results), err)
		}
	})
	bad := 0
	for _, m := range mistakes {
		res, err := result.Read(m.result(results))
		if err != nil {
			warn("mistake %s in solutions/%s: no checklist (%v):\n%s", m.name, m.folder, err, tail(m.log(results), 20))
			bad++
			continue
		}
		if verdict := m.caught(res); verdict != "" {
			warn("mistake %s in solutions/%s: %s", m.name, m.folder, verdict)
			bad++
			continue
		}
		say("Mistake %s in solutions/%s is caught: %s", m.name, m.folder, m.says)
	}
	if err := c.noSurvivors("the marked mistakes' tests"); err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d mistakes are not caught, or caught with a message that does not name them (logs: %s)", bad, len(mistakes), rel(root, results))
	}
	say("All %d mistakes are caught, each by a checklist row that names it", len(mistakes))
	return nil
}

func (m mistakeRow) log(results string) string {
	return filepath.Join(results, m.folder+"-"+m.name+".log")
}

func (m mistakeRow) result(results string) string {
	return filepath.Join(results, m.folder+"-"+m.name+".json")
}

// mistake writes solution m.folder with the mistake made, into a scratch checkout, and
// runs its tests as make check-N would. The mistake's task must be the first to fail:
// the later tasks' tests need not run. A mistake of no task (0) runs them all, and the
// others.
func (c *checks) mistake(results string, l index.Lesson, m mistakeRow) (err error) {
	if l.StartsEmpty {
		return c.capstoneMistake(results, l, m) // capstone.go: graded from outside
	}
	log, err := os.Create(m.log(results))
	if err != nil {
		return err
	}
	defer log.Close()
	dir, top, err := c.scratchStage("solutions", m.folder, log, "-mistake", m.name)
	if top != "" {
		defer removeTemp(top, &err)
	}
	if err != nil {
		return err
	}
	return c.stageTests(dir, l, log, "check", "-upto", strconv.Itoa(m.task), "-result", m.result(results))
}

// caught says what is wrong with the checklist res of mistake m, "" when it shows the
// mistake's words where they belong: under the mistake's task's row, the first failing
// one, or, for a mistake of no task, under the first failing row or a test of no task.
func (m mistakeRow) caught(res result.Result) string {
	f := res.Failure
	if f == nil || f.Task == 0 && !f.Untied {
		return fmt.Sprintf("no test fails (%d of %d tasks done)", res.Done, res.Total)
	}
	where := "the first failing row"
	if m.task > 0 {
		where = fmt.Sprintf("task %d's row", m.task)
		if f.Task != m.task {
			return fmt.Sprintf("%s is not the first failing one: task %d's is, showing:\n  %s", where, f.Task, strings.Join(f.Lines, "\n  "))
		}
	}
	// The lines as one, as a learner reads them: a message may wrap.
	var shown []string
	for _, line := range f.Lines {
		shown = append(shown, strings.TrimSpace(line))
	}
	if !strings.Contains(strings.Join(shown, " "), m.says) {
		return fmt.Sprintf("%s does not say %q; it shows:\n  %s", where, m.says, strings.Join(f.Lines, "\n  "))
	}
	return ""
}

// mistakesResults empties, or makes, the folder of a mistakes run's logs and results,
// one a track (mistakes-all for every track): make test grades the capstone's mistakes
// in a lane of its own while the others run, and a shared folder, emptied at the start
// of the second run, lost the first run's results.
func mistakesResults(root, track string) (string, error) {
	return freshFolder(root, "mistakes-"+cmp.Or(track, "all"))
}

// Command lessongen writes the stages of a track and the lessons of those stages.
//
// A track is one operator taught over several lessons; its last solution is the source
// of the earlier ones (see stage.go for the //stage: markers):
//
//	lessongen -source solutions/09-nodepool-deploy -first 5 -stage 6 -to solutions/06-nodepool-finalizer
//
// A lesson is its solution with every part the learner writes replaced by a TODO and, where
// the code must still compile, a stub. Each TODO is a numbered task; its hints and the
// tests that check it go to the index of the lessons (see index.go):
//
//	//lesson:todo(3) The task's title.                 -> // TODO(3): The task's title.
//	//lesson:todo What to write and where to look.      -> // What to write and where to look.
//	//lesson:hint A nudge; the next hint names the API.    (lessons/index.json)
//	//lesson:test TestThatFailsUntilTheTaskIsDone          (lessons/index.json)
//	//lesson:stub return nil                            -> return nil
//	...the solution's code...                           -> (dropped)
//	//lesson:end
//
//	lessongen -from solutions/06-nodepool-finalizer -to lessons/06-nodepool-finalizer -index lessons/index.json -title T
//
// Either way import paths and the module path follow the target folder, imports nothing
// uses any more are removed, and everything else is copied as it is. The target folder is
// replaced entirely.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	from := flag.String("from", "", "the solution a lesson is made from")
	source := flag.String("source", "", "the track's last solution, the source of its stages")
	first := flag.Int("first", 0, "with -source: the track's first stage")
	stage := flag.Int("stage", 0, "with -source: the stage to write")
	to := flag.String("to", "", "the folder to write, replaced entirely")
	mistakeName := flag.String("mistake", "", "with -source: make this mistake in the stage (see mistake.go)")
	list := flag.Bool("list-mistakes", false, "with -source and -first: print each mistake's stage, name and message")
	done := flag.Int("done", 0, "with -from: leave the tasks numbered up to this one solved")
	indexFile := flag.String("index", "", "with -from: write the lesson's entry into this index (lessons/index.json)")
	title := flag.String("title", "", "with -index: the lesson's title")
	flag.Parse()
	var err error
	switch {
	case *from != "" && *source == "" && *to != "":
		var todos []todo
		if todos, err = generate(*from, *to, *done); err == nil && *indexFile != "" {
			err = updateIndex(*indexFile, *from, *to, *title, todos)
		}
	case *list && *source != "" && *first > 0:
		var mistakes []mistake
		if mistakes, err = listMistakes(*source, *first); err == nil {
			for _, m := range mistakes {
				fmt.Printf("%d\t%s\t%s\n", m.stage, m.name, m.want)
			}
		}
	case *source != "" && *from == "" && *to != "" && *first > 0 && *stage >= *first:
		err = generateStage(*source, *to, *first, *stage, *mistakeName)
	default:
		fmt.Fprintln(os.Stderr, "usage: lessongen -from solutions/NN-name -to lessons/NN-name [-index lessons/index.json -title T] [-done N]")
		fmt.Fprintln(os.Stderr, "       lessongen -source solutions/NN-name -first N -stage N [-mistake NAME] -to solutions/NN-name")
		fmt.Fprintln(os.Stderr, "       lessongen -source solutions/NN-name -first N -list-mistakes")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "lessongen: %v\n", err)
		os.Exit(1)
	}
}

package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A track is one operator taught over several lessons: tracks/<name>, a Go module
// holding the last stage with its markers (source.go), and its manifest (manifest.go).
type track struct {
	name     string
	dir      string // tracks/<name>
	module   string // the module path of tracks/<name>
	manifest *manifest
	files    []string          // the source's files, slash-separated, in walk order
	src      map[string][]byte // their contents
	borrowed map[string]string // a file another track writes -> that track's name
}

// loadTrack reads tracks/<name> of the repository at root.
func loadTrack(root, name string) (*track, error) {
	t := &track{name: name, dir: filepath.Join(root, "tracks", name), src: map[string][]byte{}, borrowed: map[string]string{}}
	m, err := readManifest(filepath.Join(t.dir, manifestFile))
	if err != nil {
		return nil, err
	}
	t.manifest = m
	if t.module, err = modulePath(t.dir); err != nil {
		return nil, err
	}
	for _, b := range m.Borrows {
		for _, f := range b.Files {
			t.borrowed[f] = b.Track
		}
	}
	err = filepath.WalkDir(t.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(t.dir, path)
		rel = filepath.ToSlash(rel)
		if rel == manifestFile {
			return nil
		}
		src, err := os.ReadFile(path)
		t.files = append(t.files, rel)
		t.src[rel] = src
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, l := range m.Lessons {
		for _, f := range l.Files {
			if t.src[f] == nil {
				return nil, fmt.Errorf("%s: lesson %d: files: %s is not in the track", t.manifestPath(), l.Number, f)
			}
		}
		for _, f := range l.Replaces {
			if t.src[beforeFolder(l.Number)+f] == nil {
				return nil, fmt.Errorf("%s: lesson %d: replaces: %s has no earlier version, tracks/%s/%s%s", t.manifestPath(), l.Number, f, name, beforeFolder(l.Number), f)
			}
		}
	}
	for _, rel := range t.files {
		if file, _, until := m.versionOf(rel); until > 0 {
			if l := m.lesson(until); l == nil || !slices.Contains(l.Replaces, file) {
				return nil, fmt.Errorf("tracks/%s/%s: an earlier version of %s, which lesson %d does not list under replaces in %s", name, rel, file, until, t.manifestPath())
			}
		}
	}
	return t, t.checkFences()
}

func (t *track) manifestPath() string { return filepath.Join("tracks", t.name, manifestFile) }

// loadTracks reads every track of the repository, in the order of their first lessons.
func loadTracks(root string) ([]*track, error) {
	entries, err := os.ReadDir(filepath.Join(root, "tracks"))
	if err != nil {
		return nil, err
	}
	var tracks []*track
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t, err := loadTrack(root, e.Name())
		if err != nil {
			return nil, err
		}
		tracks = append(tracks, t)
	}
	slices.SortFunc(tracks, func(a, b *track) int { return a.manifest.firstStage() - b.manifest.firstStage() })
	return tracks, nil
}

// checkFences checks that the code and the manifest agree: each task of each lesson is
// written in its main place and in every place its `also` names, once, and the code marks
// no task the manifest lacks.
func (t *track) checkFences() error {
	type place struct {
		lesson, task int
		name         string
	}
	found := map[place]string{}
	for _, rel := range t.files {
		if !t.isText(rel) {
			continue
		}
		// The source as its own lesson shows every fence of that lesson.
		for _, l := range t.manifest.Lessons {
			if _, ok := t.existsIn(rel, l.Number); !ok {
				continue
			}
			_, _, fences, err := render(t.src[rel], commentOf(rel), t.manifest.firstStage(), target{Stage: l.Number}, nil)
			if err != nil {
				return fmt.Errorf("tracks/%s/%s:%w", t.name, rel, err)
			}
			for _, f := range fences {
				p := place{f.Lesson, f.Task, f.Place}
				if where, ok := found[p]; ok {
					return fmt.Errorf("tracks/%s/%s: %s is marked twice (also in %s); name the other places of a task (//lesson:%d.%d NAME) and give each its text under `also`", t.name, rel, fenceName(f), where, f.Lesson, f.Task)
				}
				found[p] = rel
			}
		}
	}
	for _, l := range t.manifest.Lessons {
		if l.Empty {
			continue // its tasks are requirements, checked from outside
		}
		for _, task := range l.Tasks {
			if _, ok := found[place{l.Number, task.ID, ""}]; !ok {
				return fmt.Errorf("%s: lesson %d, task %d: no //lesson:%d.%d in the code marks where it is written", t.manifestPath(), l.Number, task.ID, l.Number, task.ID)
			}
			for name := range task.Also {
				if _, ok := found[place{l.Number, task.ID, name}]; !ok {
					return fmt.Errorf("%s: lesson %d, task %d: also %s: no //lesson:%d.%d %s in the code", t.manifestPath(), l.Number, task.ID, name, l.Number, task.ID, name)
				}
			}
		}
	}
	for p, rel := range found {
		task := t.task(p.lesson, p.task)
		if task == nil {
			return fmt.Errorf("tracks/%s/%s: //lesson:%d.%d: lesson %d has no task %d in %s", t.name, rel, p.lesson, p.task, p.lesson, p.task, t.manifestPath())
		}
		if _, ok := task.Also[p.name]; p.name != "" && !ok {
			return fmt.Errorf("tracks/%s/%s: //lesson:%d.%d %s: task %d of lesson %d has no place %s under `also` in %s", t.name, rel, p.lesson, p.task, p.name, p.task, p.lesson, p.name, t.manifestPath())
		}
	}
	return nil
}

func fenceName(f fence) string {
	if f.Place == "" {
		return fmt.Sprintf("task %d.%d", f.Lesson, f.Task)
	}
	return fmt.Sprintf("task %d.%d %s", f.Lesson, f.Task, f.Place)
}

func (t *track) task(lesson, id int) *taskSpec {
	l := t.manifest.lesson(lesson)
	if l == nil || id < 1 || id > len(l.Tasks) {
		return nil
	}
	return &l.Tasks[id-1]
}

// text gives a place's TODO line and the lines under it.
func (t *track) text(lesson, id int, place string) (string, []string, error) {
	task := t.task(lesson, id)
	if task == nil {
		return "", nil, fmt.Errorf("lesson %d has no task %d in %s", lesson, id, t.manifestPath())
	}
	if place == "" {
		return task.Title, lines(task.Todo), nil
	}
	text, ok := task.Also[place]
	if !ok {
		return "", nil, fmt.Errorf("task %d of lesson %d has no place %s under `also` in %s", id, lesson, place, t.manifestPath())
	}
	all := lines(text)
	if len(all) == 0 {
		return "", nil, fmt.Errorf("task %d of lesson %d: also %s: the text is empty", id, lesson, place)
	}
	return all[0], all[1:], nil
}

func lines(text string) []string {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// renamed returns src as stage has it: with the words of every later lesson's renames
// put back as they were before it, the latest lesson first.
func (t *track) renamed(src []byte, stage int) []byte {
	for i := len(t.manifest.Lessons) - 1; i >= 0; i-- {
		l := t.manifest.Lessons[i]
		if l.Number <= stage {
			break
		}
		froms := slices.Sorted(maps.Keys(l.Renames))
		for _, from := range froms {
			src = bytes.ReplaceAll(src, []byte(from), []byte(l.Renames[from]))
		}
	}
	return src
}

// existsIn returns the path of a file of the track in the target stage, and whether that
// stage has this version of it: a file a later lesson replaces stands for the stages
// before it, and its earlier versions (_before<N>/) for theirs.
func (t *track) existsIn(rel string, stage int) (string, bool) {
	name, from, until := t.manifest.versionOf(rel)
	return name, from <= stage && (until == 0 || stage < until)
}

// isText says whether a file carries markers: binary files are copied as they are.
func (t *track) isText(rel string) bool { return !bytes.ContainsRune(t.src[rel], 0) }

// A stage is what one rendering of a track gives: its files by path, and the fences of
// its lesson's tasks.
type stage struct {
	folder  string // NN-name
	files   map[string][]byte
	fences  map[string][]fence // by file
	changed []string           // the Go files where lines were left out or put in
}

// render writes the target of the track, in memory, with the track's module path.
// borrowed gives the files of other tracks that this one takes, as their stage has them.
func (t *track) render(tg target, borrowed map[string][]byte) (*stage, error) {
	l := t.manifest.lesson(tg.Stage)
	if l == nil {
		return nil, fmt.Errorf("track %s has no lesson %d", t.name, tg.Stage)
	}
	st := &stage{folder: l.Folder, files: map[string][]byte{}, fences: map[string][]fence{}}
	if l.Empty && tg.Lesson {
		return st, nil // the learner's folder starts empty but for its README
	}
	files := slices.Clone(t.files)
	for rel := range t.borrowed {
		if !slices.Contains(files, rel) {
			files = append(files, rel) // not written into the track yet
		}
	}
	for _, rel := range files {
		if from, ok := t.borrowed[rel]; ok {
			if t.manifest.enters(rel) > tg.Stage {
				continue
			}
			src, ok := borrowed[rel]
			if !ok {
				return nil, fmt.Errorf("tracks/%s/%s: borrowed from track %s, which did not write it", t.name, rel, from)
			}
			st.files[rel] = src
			continue
		}
		name, ok := t.existsIn(rel, tg.Stage)
		if !ok {
			continue
		}
		src := t.src[rel]
		if !t.isText(rel) {
			st.files[name] = src
			continue
		}
		out, changed, fences, err := render(src, commentOf(rel), t.manifest.firstStage(), tg, t.text)
		if err != nil {
			return nil, fmt.Errorf("tracks/%s/%s:%w", t.name, rel, err)
		}
		if out == nil {
			continue
		}
		st.files[name] = t.renamed(out, tg.Stage)
		st.fences[name] = fences
		if changed {
			st.changed = append(st.changed, name)
		}
	}
	return st, nil
}

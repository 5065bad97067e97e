package stage

import (
	"io/fs"
	"path/filepath"
	"sort"
	"time"
)

// EditedSince returns a file of the module dir changed after since, if any: the
// learner's files, not those make check-N regenerates (Outputs). Of several, the first
// in the order of their paths.
func EditedSince(dir string, since time.Time) (string, error) {
	var edited []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); fi.ModTime().After(since) && !IsOutput(rel) {
			edited = append(edited, rel)
		}
		return nil
	})
	if err != nil || len(edited) == 0 {
		return "", err
	}
	sort.Strings(edited)
	return edited[0], nil
}

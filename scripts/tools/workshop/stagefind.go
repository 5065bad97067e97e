package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"go.yaml.in/yaml/v3"
)

// trackManifest is the part of tracks/<name>/lessons.yaml that orders a track's
// lessons: lessongen reads the whole file, this only the folder of each lesson, in the
// manifest's order, which is the order the track teaches them in.
type trackManifest struct {
	Lessons []struct {
		Folder string `yaml:"folder"`
	} `yaml:"lessons"`
}

// trackOf returns the track of a lesson or solution folder (06-nodepool-finalizer:
// nodepool) and the folder of the lesson before it in that track (13-imoocpod-versions:
// 02-imoocpod-workflow), "" for a track's first lesson. The tracks are the folders of
// tracks/, each with its lessons.yaml, as for lessongen.
func trackOf(root, folder string) (track, before string, err error) {
	folder = filepath.Base(folder)
	manifests, err := filepath.Glob(filepath.Join(root, "tracks", "*", "lessons.yaml"))
	if err != nil {
		return "", "", err
	}
	slices.Sort(manifests)
	for _, name := range manifests {
		src, err := os.ReadFile(name)
		if err != nil {
			return "", "", err
		}
		var m trackManifest
		if err := yaml.Unmarshal(src, &m); err != nil {
			return "", "", fmt.Errorf("%s: %w", name, err)
		}
		for i, l := range m.Lessons {
			if l.Folder != folder {
				continue
			}
			if i > 0 {
				before = m.Lessons[i-1].Folder
			}
			return filepath.Base(filepath.Dir(name)), before, nil
		}
	}
	return "", "", fmt.Errorf("no tracks/*/lessons.yaml lists the lesson %s", folder)
}

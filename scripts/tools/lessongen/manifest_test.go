package main

import (
	"fmt"
	"strings"
	"testing"
)

// A lesson's mistakes are its tasks', each with its task, then its own; a mistake is
// found by its name in the lesson that makes it, whichever of the two holds it.
func TestAMistakeIsFoundInItsTaskOrItsLesson(t *testing.T) {
	m := &manifest{Lessons: []lessonSpec{
		{Number: 1, Tasks: []taskSpec{
			{ID: 1, Mistakes: []mistakeSpec{{Name: "a"}}},
			{ID: 2, Mistakes: []mistakeSpec{{Name: "b"}, {Name: "c"}}},
		}, Mistakes: []mistakeSpec{{Name: "d"}}},
		{Number: 2, Tasks: []taskSpec{{ID: 1}}, Mistakes: []mistakeSpec{{Name: "e"}}},
	}}
	var got []string
	for task, ms := range m.Lessons[0].allMistakes() {
		got = append(got, fmt.Sprintf("%d %s", task, ms.Name))
	}
	if want := "1 a, 2 b, 2 c, 0 d"; strings.Join(got, ", ") != want {
		t.Errorf("lesson 1's mistakes, with their tasks: %s; want %s", strings.Join(got, ", "), want)
	}
	for name, lesson := range map[string]int{"a": 1, "c": 1, "d": 1, "e": 2} {
		if ms, n := m.mistake(name); ms == nil || ms.Name != name || n != lesson {
			t.Errorf("mistake(%q) = %v, lesson %d; want it, in lesson %d", name, ms, n, lesson)
		}
	}
	if ms, n := m.mistake("f"); ms != nil {
		t.Errorf("mistake(\"f\") = %v, lesson %d; want none", ms, n)
	}
}

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Every lesson page has one shape, the sections below in this order, and a budget: a
// learner reads the main path (everything before "Going further") in one sitting, and
// the pages together stay a workshop, not a book. Prose is what a learner reads as
// sentences: the words outside fenced code blocks and HTML comments.
var pageSections = []string{"Concepts", "Your tasks", "Check your work", "Common mistakes", "Going further", "Next"}

const (
	mainPathBudget = 2500 // prose words of a page before "## Going further"
	// The pages together hold at most this many prose words a page on average, so that
	// a new lesson brings its words and no more: 14 pages were cut from 51,177 words to
	// 31,576 (2,255 a page) under one template.
	averagePageBudget = 2200
)

// pagesBudget is the prose words that n lesson pages may hold together.
func pagesBudget(n int) int { return n * averagePageBudget }

// pageWords is what one lesson page holds, in prose words.
type pageWords struct {
	page     string
	mainPath int // before "## Going further"
	further  int // from "## Going further" on
	sections []string
}

func (p pageWords) total() int { return p.mainPath + p.further }

// countWords reads a page's sections and counts its prose words.
func countWords(page string, src []byte) pageWords {
	w := pageWords{page: page}
	inCode, inComment, further := false, false, false
	for line := range strings.SplitSeq(string(src), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inCode = !inCode
			continue
		case inCode:
			continue
		case strings.HasPrefix(trimmed, "<!--"):
			inComment = !strings.Contains(trimmed, "-->")
			continue
		case inComment:
			inComment = !strings.Contains(trimmed, "-->")
			continue
		case strings.HasPrefix(line, "## "):
			title := strings.TrimPrefix(line, "## ")
			w.sections = append(w.sections, title)
			further = further || title == "Going further"
		}
		n := len(strings.Fields(line))
		if further {
			w.further += n
		} else {
			w.mainPath += n
		}
	}
	return w
}

// problems says how the page departs from the template and the budget.
func (p pageWords) problems() []string {
	var out []string
	if !slices.Equal(p.sections, pageSections) {
		out = append(out, fmt.Sprintf("%s: its sections are %q; every lesson page has %q, in that order",
			p.page, p.sections, pageSections))
	}
	if p.mainPath > mainPathBudget {
		out = append(out, fmt.Sprintf("%s: %d prose words before \"## Going further\", over the budget of %d: move depth there or to TROUBLESHOOTING",
			p.page, p.mainPath, mainPathBudget))
	}
	return out
}

// lessonPages counts the words of every docs/lesson-NN.md.
func lessonPages(root string) ([]pageWords, error) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "lesson-[0-9][0-9].md"))
	if err != nil {
		return nil, err
	}
	var all []pageWords
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			return nil, err
		}
		all = append(all, countWords(filepath.ToSlash(strings.TrimPrefix(page, root+string(filepath.Separator))), src))
	}
	return all, nil
}

// printWords prints each page's prose words and the total against their budgets, and
// with check fails when a page or the total is over or a page departs from the template.
func printWords(root string, out io.Writer, check bool) error {
	pages, err := lessonPages(root)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%-20s %10s %14s %8s\n", "page", "main path", "going further", "total")
	sum := 0
	var problems []string
	for _, p := range pages {
		fmt.Fprintf(out, "%-20s %10d %14d %8d\n", p.page, p.mainPath, p.further, p.total())
		sum += p.total()
		problems = append(problems, p.problems()...)
	}
	budget := pagesBudget(len(pages))
	fmt.Fprintf(out, "%-20s %10s %14s %8d (budget %d: %d a page on average; main path %d a page)\n",
		"all pages", "", "", sum, budget, averagePageBudget, mainPathBudget)
	if sum > budget {
		problems = append(problems, fmt.Sprintf("the %d lesson pages hold %d prose words, over their budget of %d (%d a page on average)",
			len(pages), sum, budget, averagePageBudget))
	}
	if !check || len(problems) == 0 {
		return nil
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	return fmt.Errorf("%d problems with the lesson pages' shape or length", len(problems))
}

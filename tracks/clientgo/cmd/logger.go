package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// newLogger returns a logger that writes lines like the other managers' (zap's
// development format): time, level, logger name, message, then key="value" pairs.
// Errors say ERROR between tabs, which is what the walkthroughs count. level is debug
// (V(1) lines too), info or error.
func newLogger(w io.Writer, level string) (logr.Logger, error) {
	s := &sink{out: &lockedWriter{w: w}}
	noLevelKey := ""
	opts := funcr.Options{
		// The level has its own column too.
		LogInfoLevel: &noLevelKey,
		// The message has its own column: leave it out of the key/value pairs.
		RenderBuiltinsHook: func(kvList []any) []any {
			var kept []any
			for i := 0; i+1 < len(kvList); i += 2 {
				if kvList[i] != "msg" {
					kept = append(kept, kvList[i], kvList[i+1])
				}
			}
			return kept
		},
	}
	switch level {
	case "debug":
		opts.Verbosity = 1
	case "info":
	case "error":
		s.errorsOnly = true
	default:
		return logr.Logger{}, fmt.Errorf("--zap-log-level: %q is not debug, info or error", level)
	}
	s.Formatter = funcr.NewFormatter(opts)
	return logr.New(s), nil
}

// sink is a logr.LogSink on funcr's Formatter, which renders the values; sink only
// lays out the line.
type sink struct {
	funcr.Formatter
	out        *lockedWriter
	errorsOnly bool
}

func (s *sink) Enabled(level int) bool { return !s.errorsOnly && s.Formatter.Enabled(level) }

func (s *sink) Info(level int, msg string, kvList ...any) {
	name, args := s.FormatInfo(level, msg, kvList)
	levelName := "INFO"
	if level > 0 {
		levelName = "DEBUG"
	}
	s.out.line(levelName, name, msg, args)
}

func (s *sink) Error(err error, msg string, kvList ...any) {
	name, args := s.FormatError(err, msg, kvList)
	s.out.line("ERROR", name, msg, args)
}

func (s *sink) WithName(name string) logr.LogSink {
	c := *s
	c.AddName(name)
	return &c
}

func (s *sink) WithValues(kvList ...any) logr.LogSink {
	c := *s
	c.AddValues(kvList)
	return &c
}

// lockedWriter writes whole lines, one at a time, from every goroutine.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) line(level, name, msg, args string) {
	text := fmt.Sprintf("%s\t%s\t%s\t%s", time.Now().Format("2006-01-02T15:04:05.000Z07:00"), level, name, msg)
	if args = strings.TrimSpace(args); args != "" {
		text += "\t" + args
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.w, text)
}

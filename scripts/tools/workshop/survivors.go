package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processMark returns a marker for the environment of what a command starts
// (WORKSHOP_PROCESSES_NAME=...), which every process it starts inherits, whatever
// process group it makes for itself: envtest puts etcd and kube-apiserver in groups of
// their own, out of reach of a kill of go test's group. scripts/lib/processes.sh marks
// the scripts' processes the same way.
func processMark(name string) string {
	return fmt.Sprintf("WORKSHOP_PROCESSES_%s=%d-%d", name, os.Getpid(), time.Now().UnixNano())
}

// stopSurvivors kills every process that still carries mark, but this one, and returns
// them as "PID COMMAND". It reads /proc: on Linux only; elsewhere it does nothing, as
// scripts/lib/processes.sh.
func stopSurvivors(mark string) []string {
	var stopped []string
	environs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, environ := range environs {
		pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(environ, "/proc/"), "/environ"))
		if err != nil || pid == os.Getpid() {
			continue
		}
		// A zombie has no environment left; a process of another user cannot be read.
		env, err := os.ReadFile(environ)
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if string(kv) == mark {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				_ = syscall.Kill(pid, syscall.SIGKILL)
				stopped = append(stopped, fmt.Sprintf("%d %.120s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
				break
			}
		}
	}
	return stopped
}

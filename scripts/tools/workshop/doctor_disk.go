//go:build darwin || linux

package main

import (
	"path/filepath"
	"syscall"
)

// freeSpace returns the bytes free to an unprivileged user on the filesystem holding
// path, and that filesystem's mount point. The mount point is the last folder up from
// path on the same device, which works alike on macOS and Linux (neither df's columns
// nor /proc are needed). Statfs_t's field types differ between the two; the conversions
// make one file compile for both.
func freeSpace(path string) (free uint64, mount string, err error) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(path, &fs); err != nil {
		return 0, "", err
	}
	free = uint64(fs.Bavail) * uint64(fs.Bsize)
	mount, err = filepath.Abs(path)
	if err != nil {
		return 0, "", err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(mount, &st); err != nil {
		return 0, "", err
	}
	for mount != "/" {
		var up syscall.Stat_t
		if err := syscall.Stat(filepath.Dir(mount), &up); err != nil || uint64(up.Dev) != uint64(st.Dev) {
			break
		}
		mount = filepath.Dir(mount)
	}
	return free, mount, nil
}

//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalKillsChildren: SIGTERM to retryvet while its go vet child is
// compiling (a fresh GOCACHE makes it compile net/http and its standard
// library dependencies, which takes far longer than the test waits). The
// driver forwards the signal to the child's process group, so it exits
// 128+15 before the kill grace runs out (without forwarding it would wait
// the whole grace for a child that never ends), and no process of that
// group is left.
func TestSignalKillsChildren(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/sig\n\ngo 1.26\n",
		"p/p.go": "package p\n\nimport \"net/http\"\n\nvar C = http.DefaultClient\n",
	})
	cmd := exec.Command(buildRetryvet(t), "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOPROXY=off", "GOCACHE="+filepath.Join(t.TempDir(), "gocache"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var groups map[int]bool
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		for g := range groups {
			_ = syscall.Kill(-g, syscall.SIGKILL) // the test failed: leave nothing behind
		}
	})
	// Wait for a go vet child whose group has more than the go command in
	// it (a compile or the vet tool): the signal must reach those too.
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 60*time.Second {
			t.Fatal("no go vet child with a process under it within 60s")
		}
		groups = vetGroups(cmd.Process.Pid)
		if len(groups) > 0 {
			break
		}
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	took := time.Since(sent)
	if code := exitCode(err); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d (%v), want %d", code, err, 128+int(syscall.SIGTERM))
	}
	if took >= killGrace {
		t.Errorf("retryvet took %v to exit, the whole kill grace (%v): the children did not get the signal", took, killGrace)
	}
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		left := alive(groups)
		if len(left) == 0 {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("processes of the children's groups %v left 5s after retryvet exited: %v", keys(groups), left)
		}
	}
}

// proc is one /proc/PID/stat line's fields the test reads.
type proc struct {
	pid, ppid, pgrp int
	state           byte
}

func procs() []proc {
	entries, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out = append(out, proc{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0]})
	}
	return out
}

// vetGroups returns the process groups of root's go vet children that
// hold at least one more process than the go command.
func vetGroups(root int) map[int]bool {
	ps := procs()
	size := map[int]int{}
	for _, p := range ps {
		if p.state != 'Z' {
			size[p.pgrp]++
		}
	}
	groups := map[int]bool{}
	for _, p := range ps {
		if p.ppid != root || p.pgrp != p.pid || size[p.pgrp] < 2 {
			continue
		}
		args, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "cmdline"))
		if a := strings.Split(string(args), "\x00"); len(a) > 1 && filepath.Base(a[0]) == "go" && a[1] == "vet" {
			groups[p.pgrp] = true
		}
	}
	return groups
}

// alive lists the processes of groups that are not zombies (a zombie no
// longer runs; in a container nothing may reap it).
func alive(groups map[int]bool) []int {
	var left []int
	for _, p := range procs() {
		if groups[p.pgrp] && p.state != 'Z' {
			left = append(left, p.pid)
		}
	}
	return left
}

func keys(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}

package main

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// The go commands the driver starts run in their own process group, with
// the vet tool processes they start. When the driver is interrupted or
// terminated (a CI step's timeout sends SIGTERM, Ctrl-C SIGINT), it sends
// the signal to each group, then kills what is left after a grace period,
// and exits 128+signal: no go vet or vet tool process outlives it.

const killGrace = 3 * time.Second

// runCmd runs cmd in a process group of its own and waits for it. Once a
// signal came it returns no more: the handler exits 128+signal, and the
// run must not exit first with the error of the child it killed.
func (d *driver) runCmd(cmd *exec.Cmd) error {
	setGroup(cmd) // procgroup_*.go
	d.mu.Lock()
	if d.stopping {
		d.mu.Unlock()
		select {}
	}
	if d.children == nil {
		d.children = map[*exec.Cmd]bool{}
	}
	if err := cmd.Start(); err != nil {
		d.mu.Unlock()
		return err
	}
	d.children[cmd] = true
	d.mu.Unlock()
	err := cmd.Wait()
	d.mu.Lock()
	delete(d.children, cmd)
	stopping := d.stopping
	d.mu.Unlock()
	if stopping {
		select {}
	}
	return err
}

// handleSignals forwards SIGINT and SIGTERM to the children's process
// groups and exits; the returned function stops it.
func (d *driver) handleSignals() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			d.mu.Lock()
			d.stopping = true
			var groups []*exec.Cmd
			for c := range d.children {
				groups = append(groups, c)
			}
			d.mu.Unlock()
			for _, c := range groups {
				signalGroup(c, sig)
			}
			deadline := time.Now().Add(killGrace)
			for time.Now().Before(deadline) && d.running() > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			for _, c := range groups {
				killGroup(c)
			}
			n := 1
			if s, ok := sig.(syscall.Signal); ok {
				n = int(s)
			}
			os.Exit(128 + n)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

func (d *driver) running() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.children)
}

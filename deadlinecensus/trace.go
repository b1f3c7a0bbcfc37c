package deadlinecensus

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// Phase tracing for measuring the census: RETRYVET_CENSUS_TRACE=1 prints
// each phase's time and the live heap after it on stderr;
// RETRYVET_CENSUS_MEMPROFILE=FILE writes a heap profile when the census
// holds the most (after the call graph and the retry model). Both are for
// the benchmark, not part of the command's interface.
type phaseTrace struct {
	on    bool
	start time.Time
	last  time.Time
}

func newPhaseTrace() *phaseTrace {
	now := time.Now()
	return &phaseTrace{on: os.Getenv("RETRYVET_CENSUS_TRACE") != "", start: now, last: now}
}

func (t *phaseTrace) phase(name string) {
	if t == nil || !t.on {
		return
	}
	now := time.Now()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(os.Stderr, "census: %-28s %6.1fs (total %6.1fs) live heap %5d MiB, sys %5d MiB\n",
		name, now.Sub(t.last).Seconds(), now.Sub(t.start).Seconds(), ms.HeapAlloc>>20, ms.Sys>>20)
	t.last = time.Now()
}

// memProfile writes the heap profile named by RETRYVET_CENSUS_MEMPROFILE.
func memProfile() {
	file := os.Getenv("RETRYVET_CENSUS_MEMPROFILE")
	if file == "" {
		return
	}
	f, err := os.Create(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "census: memory profile: %v\n", err)
		return
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "census: memory profile: %v\n", err)
	}
}

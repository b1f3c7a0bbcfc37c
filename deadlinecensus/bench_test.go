package deadlinecensus

// The performance check: the census against its floor (go/packages load +
// SSA build + the same VTA call graph) on a generated module of more than
// 100k lines, in the same run, each in its own process so peak memory is
// the process's own.
//
//	RETRYVET_BENCH=1 go test -run TestCensusVsFloor -v -timeout 60m ./deadlinecensus
//
// RETRYVET_BENCH_LINES sets the size (default 110000). RETRYVET_BENCH_DIR
// runs on an existing module instead (e.g. a real one in a scratch folder).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCensusVsFloor(t *testing.T) {
	if os.Getenv("RETRYVET_BENCH") == "" {
		t.Skip("set RETRYVET_BENCH=1 to run the census benchmark")
	}
	dir := os.Getenv("RETRYVET_BENCH_DIR")
	if dir == "" {
		lines := 110000
		if s := os.Getenv("RETRYVET_BENCH_LINES"); s != "" {
			lines, _ = strconv.Atoi(s)
		}
		dir = t.TempDir()
		n, err := generate(dir, lines)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("generated %d lines of Go in %s", n, dir)
	}
	type result struct {
		wall time.Duration
		rss  int64 // KiB
		out  string
	}
	child := func(mode string) result {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBenchChild$", "-test.v")
		cmd.Env = append(os.Environ(), "RETRYVET_BENCH_CHILD="+mode, "RETRYVET_BENCH_CHILD_DIR="+dir)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		var rss int64
		if ru != nil {
			rss = ru.Maxrss
		}
		return result{wall, rss, string(out)}
	}
	// Warm the build and module caches once, then alternate. The machine
	// may be shared: the median of the rounds is reported, and the census
	// process also times its own phases (the floor's part and its own).
	child("floor")
	rounds := 3
	if s := os.Getenv("RETRYVET_BENCH_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	var floor, census []result
	for range rounds {
		floor = append(floor, child("floor"))
		census = append(census, child("census"))
	}
	median := func(rs []result) result {
		ws := make([]time.Duration, len(rs))
		var rss int64
		for i, r := range rs {
			ws[i] = r.wall
			rss = max(rss, r.rss)
		}
		slices.Sort(ws)
		return result{wall: ws[len(ws)/2], rss: rss, out: rs[len(rs)-1].out}
	}
	f, c := median(floor), median(census)
	fmt.Printf("floor  (load + SSA + VTA call graph): %8.1fs  peak RSS %6d MiB  (median of %d)\n", f.wall.Seconds(), f.rss/1024, rounds)
	fmt.Printf("census (the same + model + walk):     %8.1fs  peak RSS %6d MiB\n", c.wall.Seconds(), c.rss/1024)
	fmt.Printf("ratio (separate processes): time %.2fx, memory %.2fx\n", c.wall.Seconds()/f.wall.Seconds(), float64(c.rss)/float64(f.rss))
	var floorPart, censusPart []float64
	for _, r := range census {
		var l, w float64
		for _, line := range strings.Split(r.out, "\n") {
			if strings.HasPrefix(line, "census:") {
				fmt.Sscanf(line[strings.Index(line, "load "):], "load %fs, census %fs", &l, &w)
			}
		}
		floorPart, censusPart = append(floorPart, l), append(censusPart, l+w)
	}
	slices.Sort(floorPart)
	slices.Sort(censusPart)
	fp, cp := floorPart[len(floorPart)/2], censusPart[len(censusPart)/2]
	fmt.Printf("ratio (same process, its floor part %.1fs vs the whole %.1fs): time %.2fx\n", fp, cp, cp/fp)
	for _, line := range strings.Split(c.out, "\n") {
		if strings.HasPrefix(line, "census:") {
			fmt.Println(line)
		}
	}
}

// TestBenchChild is the measured process.
func TestBenchChild(t *testing.T) {
	mode := os.Getenv("RETRYVET_BENCH_CHILD")
	if mode == "" {
		t.Skip("run by TestCensusVsFloor")
	}
	dir := os.Getenv("RETRYVET_BENCH_CHILD_DIR")
	start := time.Now()
	p, err := Load(Options{Dir: dir, Tests: true}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	loaded := time.Since(start)
	if mode == "census" {
		c, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		rows, no := 0, 0
		for _, pl := range c.Pipelines {
			rows += len(pl.Callers)
			for _, r := range pl.Callers {
				if r.CanStart.String() == "no" {
					no++
				}
			}
		}
		fmt.Printf("census: %d functions in the call graph, %d pipelines, %d rows (%d where the retry cannot start); load %.1fs, census %.1fs\n",
			len(p.Graph.Nodes), len(c.Pipelines), rows, no, loaded.Seconds(), (time.Since(start) - loaded).Seconds())
	}
}

// generate writes a module of about lines lines: groups of packages that
// call into each other through interfaces, closures and goroutines, each
// file with a pipeline (a guarded retry around an HTTP call), callers that
// set deadlines, and ordinary code around them.
func generate(dir string, lines int) (int, error) {
	const filesPerPkg = 10
	write := func(name, text string) error {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		return os.WriteFile(name, []byte(text), 0o644)
	}
	if err := write(filepath.Join(dir, "go.mod"), "module example.com/bench\n\ngo 1.26\n"); err != nil {
		return 0, err
	}
	total := 0
	var pkgs []string
	for p := 0; total < lines; p++ {
		name := fmt.Sprintf("p%03d", p)
		pkgs = append(pkgs, name)
		for f := 0; f < filesPerPkg; f++ {
			src := genFile(p, f)
			total += strings.Count(src, "\n")
			if err := write(filepath.Join(dir, name, fmt.Sprintf("f%02d.go", f)), src); err != nil {
				return 0, err
			}
		}
	}
	// main wires every package: handlers, workers, goroutines.
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"context\"\n\t\"net/http\"\n\t\"time\"\n\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\t%q\n", "example.com/bench/"+p)
	}
	b.WriteString(")\n\nfunc main() {\n\tmux := http.NewServeMux()\n")
	for i, p := range pkgs {
		fmt.Fprintf(&b, "\ts%d := &%s.Svc00{HTTP: http.DefaultClient}\n", i, p)
		fmt.Fprintf(&b, "\tmux.HandleFunc(\"/%s\", s%d.ServeChat)\n", p, i)
		if i%5 != 0 {
			fmt.Fprintf(&b, "\ts%d.Next = s%d\n", i, i-1)
		}
		fmt.Fprintf(&b, "\tgo s%d.Worker(context.Background())\n", i)
		fmt.Fprintf(&b, "\tgo func() {\n\t\tctx, cancel := context.WithTimeout(context.Background(), %d*time.Second)\n\t\tdefer cancel()\n\t\t_ = s%d.Handle00(ctx, %d)\n\t}()\n", 20+i%100, i, i)
	}
	b.WriteString("\thttp.ListenAndServe(\":8080\", mux)\n}\n")
	total += strings.Count(b.String(), "\n")
	return total, write(filepath.Join(dir, "cmd", "server", "main.go"), b.String())
}

func genFile(p, f int) string {
	var b strings.Builder
	prev := ""
	if p%5 != 0 {
		prev = fmt.Sprintf("example.com/bench/p%03d", p-1)
	}
	fmt.Fprintf(&b, "package p%03d\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\t\"net/http\"\n\t\"sort\"\n\t\"strings\"\n\t\"sync\"\n\t\"time\"\n", p)
	if prev != "" {
		fmt.Fprintf(&b, "\n\tprev %q\n", prev)
	}
	b.WriteString(")\n\n")
	fmt.Fprintf(&b, `// Caller%02d is what other packages hold.
type Caller%02d interface {
	Handle%02d(ctx context.Context, n int) error
}

// Svc%02d is a service.
type Svc%02d struct {
	HTTP  *http.Client
	URL   string
	mu    sync.Mutex
	cache map[string]int
`, f, f, f, f, f)
	if prev != "" {
		fmt.Fprintf(&b, "\tNext  prev.Caller%02d\n", f)
	}
	fmt.Fprintf(&b, `}

var waits%02d = []time.Duration{%d * time.Second, %d * time.Second}

const reserve%02d = %d * time.Second

var errRefused%02d = errors.New("refused")

func (s *Svc%02d) call(ctx context.Context, q string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"?q="+q, nil)
	if err != nil {
		return 0, err
	}
	resp, err := s.HTTP.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		return 0, errRefused%02d
	}
	return resp.StatusCode, nil
}

// Fetch%02d retries refusals while the deadline leaves room.
func (s *Svc%02d) Fetch%02d(ctx context.Context, q string) (int, error) {
	out, err := s.call(ctx, q)
	for i := 0; i < 2 && err != nil; i++ {
		wait := waits%02d[i]
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait+reserve%02d {
			return 0, err
		}
		time.Sleep(wait)
		out, err = s.call(ctx, q)
	}
	return out, err
}

// Handle%02d serves one item with its own deadline.
func (s *Svc%02d) Handle%02d(ctx context.Context, n int) error {
	ctx, cancel := context.WithTimeout(ctx, %d*time.Second)
	defer cancel()
	_, err := s.Fetch%02d(ctx, s.key(n))
	if err != nil {
		return fmt.Errorf("handle %%d: %%w", n, err)
	}
`, f, 1+f%7, 2+f%11, f, 10+p%60, f, f, f, f, f, f, f, f, f, f, f, 20+(p*7+f)%120, f)
	if prev != "" {
		fmt.Fprintf(&b, "\tif s.Next != nil {\n\t\treturn s.Next.Handle%02d(ctx, n+1)\n\t}\n", f)
	}
	fmt.Fprintf(&b, `	return nil
}

func (s *Svc%02d) key(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[string]int{}
	}
	k := fmt.Sprintf("k%%d", n)
	s.cache[k]++
	return k
}
`, f)
	if f == 0 {
		b.WriteString(`
// ServeChat is a handler.
func (s *Svc00) ServeChat(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 100*time.Second)
	defer cancel()
	if err := s.Handle00(ctx, len(r.URL.Path)); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
	}
}

// Worker runs items in goroutines.
func (s *Svc00) Worker(ctx context.Context) {
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, 40*time.Second)
			defer cancel()
			_ = s.Handle00(ctx, i)
		}()
	}
	wg.Wait()
}
`)
	}
	// Ordinary code: text processing, sorting, state machines.
	for k := 0; k < 6; k++ {
		fmt.Fprintf(&b, `
// Transform%02d_%d is ordinary code around the pipeline.
func Transform%02d_%d(items []string, limit int) (map[string]int, []string) {
	counts := make(map[string]int, len(items))
	var keep []string
	for i, it := range items {
		it = strings.TrimSpace(strings.ToLower(it))
		if it == "" || i > limit {
			continue
		}
		switch {
		case strings.HasPrefix(it, "a"):
			counts[it] += 2
		case strings.HasSuffix(it, "z"):
			counts[it]--
		default:
			counts[it]++
		}
		if counts[it] > %d {
			keep = append(keep, it)
		}
	}
	sort.Strings(keep)
	for len(keep) > limit && limit > 0 {
		keep = keep[:len(keep)-1]
	}
	return counts, keep
}
`, f, k, f, k, k+1)
	}
	return b.String()
}

#!/usr/bin/env python3
"""bench-measure.py CMD...: run CMD and print one line
   "<seconds> <maxrss MiB> <tree peak MiB> <exit code>"
on stderr (prefixed with "bench: "), where maxrss is the largest resident
set of any one process of the run (getrusage RUSAGE_CHILDREN, what
/usr/bin/time -v reports) and tree peak the largest sum of the resident sets
of the command and all its descendants at one time (sampled every 50 ms from
/proc). go vet runs one tool process per package, two at a time on two cores,
so both are shown. The command's own output goes where it would."""
import os, resource, subprocess, sys, time, threading

def children_map():
    kids = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                s = f.read()
            ppid = int(s[s.rindex(")") + 2:].split()[1])
            kids.setdefault(ppid, []).append(int(pid))
        except (OSError, ValueError):
            pass
    return kids

def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0

def tree_rss(root):
    kids = children_map()
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += rss_kib(p)
        todo.extend(kids.get(p, []))
    return total

def main():
    start = time.monotonic()
    proc = subprocess.Popen(sys.argv[1:])
    peak = [0]
    done = threading.Event()
    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss(proc.pid))
            done.wait(0.05)
    t = threading.Thread(target=sample, daemon=True)
    t.start()
    code = proc.wait()
    done.set()
    t.join()
    elapsed = time.monotonic() - start
    maxrss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    print(f"bench: {elapsed:.1f} {maxrss // 1024} {peak[0] // 1024} {code}", file=sys.stderr)

main()

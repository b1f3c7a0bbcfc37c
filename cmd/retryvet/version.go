package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/retryvet/retryvet/internal/inputs"
)

// version is the module version of this binary: the tag it was installed
// at (go install ...@v1.2.0), the pseudo-version the go command stamps from
// the checkout's VCS state, or "devel" when neither is known.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// printVersion answers the go command's -V=full handshake: the tool's
// name, "version", the module version, and a build ID the go command keys
// vet's cache on. The ID hashes the executable and the declared inputs
// found from the working directory (the values file and the manifests,
// internal/inputs), so an edit to .retryvet.yml or to a manifest is a new
// tool ID and go vet runs again instead of answering from its cache. A
// values file that does not parse is the handshake's error: go vet stops
// with its file and line before any package is analysed.
func printVersion(stdout, stderr io.Writer) int {
	h := sha256.New()
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			_, _ = io.Copy(h, f)
			f.Close()
		}
	}
	found, err := inputs.Discover(".", "")
	if err != nil {
		fmt.Fprintf(stderr, "retryvet: %v\n", err)
		return 1
	}
	fmt.Fprintf(h, "inputs %s\n", found.Hash())
	// "devel" in the third field makes the go command take the build ID
	// (the last field) as the tool's ID; a release version makes it take
	// the whole line. Either way the hash is in it.
	v := version()
	if v == "devel" {
		fmt.Fprintf(stdout, "retryvet version devel buildID=%x\n", h.Sum(nil))
	} else {
		fmt.Fprintf(stdout, "retryvet version %s buildID=%x\n", v, h.Sum(nil))
	}
	return 0
}

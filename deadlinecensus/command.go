package deadlinecensus

import (
	"fmt"
	"io"
)

// Command runs `retryvet census args...` and returns the exit code.
func Command(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "retryvet census: not built yet")
	return 2
}

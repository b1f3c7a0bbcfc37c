package main

import (
	"fmt"
	"io"
)

// Formats accepted by -format: text (the default) and json are the x/tools
// renderings of vet's findings, sarif is written by writeSARIF.
const formatUsage = "-format text|json|sarif"

func usageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "retryvet: %v\n", err)
	return 2
}

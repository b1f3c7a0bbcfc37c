package main

import (
	"fmt"
	"io"
	"strings"
)

// Formats accepted by -format. text and json are those of x/tools
// (multichecker prints them); sarif is written by runSARIF.
const formatUsage = "-format text|json|sarif"

// splitFormat takes -format (or --format, with = or a separate value) out of
// args, the command line without the program name, and returns the format
// ("" when absent) and the remaining arguments in order. Package patterns
// never start with '-', so the flag may appear anywhere before "--".
func splitFormat(args []string) (format string, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "format" {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return "", nil, fmt.Errorf("flag needs an argument: %s", formatUsage)
			}
			i++
			value = args[i]
		}
		switch value {
		case "text", "json", "sarif":
			format = value
		default:
			return "", nil, fmt.Errorf("unknown format %q: want %s", value, formatUsage)
		}
	}
	return format, rest, nil
}

// multicheckerArgs turns the remaining arguments into what multichecker
// expects for a format it prints itself.
func multicheckerArgs(format string, rest []string) []string {
	if format == "json" {
		return append([]string{"-json"}, rest...)
	}
	return rest
}

func usageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "retryvet: %v\n", err)
	return 2
}

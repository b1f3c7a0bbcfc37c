package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// p99Usage documents -p99, the command-line twin of the golangci-lint
// plugin's p99 setting.
const p99Usage = "default p99 latency of remote calls whose function has no //retryvet:p99 directive (a directive wins), e.g. 30s"

// p99Flag sets the model's default p99 as soon as it is parsed, so it
// works wherever the flag is parsed: standalone, under go vet (which
// learns the flag from -flags and passes it on) and with -format sarif.
type p99Flag struct{}

func (p99Flag) String() string {
	if d := retrymodel.DefaultP99(); d > 0 {
		return d.String()
	}
	return ""
}

func (p99Flag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("%q is not a positive duration (time.ParseDuration syntax, e.g. 30s)", s)
	}
	retrymodel.SetDefaultP99(d)
	return nil
}

func registerP99(fs *flag.FlagSet) { fs.Var(p99Flag{}, "p99", p99Usage) }

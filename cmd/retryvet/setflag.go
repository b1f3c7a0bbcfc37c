package main

import (
	"flag"
	"strings"

	"github.com/retryvet/retryvet/internal/values"
)

// -values FILE and -set SECTION.NAME=VALUE: the values file
// (docs/values.md) and one-off overrides of its entries. Like -p99 they
// take effect as soon as they are parsed, so they work standalone, under
// go vet (which learns them from -flags and passes them on) and with
// -format sarif. Without -values, the driver finds .retryvet.yml at the
// root of the module and declares its text (-values-yaml, internal/inputs):
// the analyzers read no file of their own.

const (
	valuesUsage = "read the values file FILE instead of " + values.FileName + " at the module root (docs/values.md); under go vet give an absolute path"
	setUsage    = "override one values-file entry: SECTION.NAME=VALUE with SECTION p99, fields or handlers, e.g. -set 'fields.example.com/svc/config.Config.Timeout=40s' (repeatable)"
)

type valuesFlag struct{}

func (valuesFlag) String() string { return values.ExplicitFile() }

func (valuesFlag) Set(s string) error { return values.SetFile(s) }

type setFlag struct{}

func (setFlag) String() string { return strings.Join(values.Sets(), " ") }

func (setFlag) Set(s string) error { return values.AddSet(s) }

func registerValues(fs *flag.FlagSet) {
	fs.Var(valuesFlag{}, "values", valuesUsage)
	fs.Var(setFlag{}, "set", setUsage)
}

package expiredctx

import "github.com/retryvet/retryvet/internal/inputs"

// The declared inputs (the values file and the manifests, internal/inputs)
// are flags of every analyzer, for drivers that set analyzer flags only
// (Bazel's nogo: analyzer_flags, docs/nogo.md). Each copy sets the same
// process-wide inputs.
func init() { inputs.Register(&Analyzer.Flags) }

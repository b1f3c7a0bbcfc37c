package retrymodel_test

import (
	"fmt"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/internal/durconst"
	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/testmod"
)

// showCalls reports every library, client and SDK layer the model finds
// with the policy it extracted, in one canonical line, so the testdata
// states per call what must be recognised and extracted:
//
//	NAME kind=K attempts=N waits=W jitter=T deadline=T cancel=T retryafter=T
//	elapsed=D assumed=B client=POS classifier=B perattempt=D ctx=B body=B ops=N opfuncs=F notes=...
//
// Calls that must not be layers carry no want comment: analysistest fails
// on any unexpected report.
var showCalls = &analysis.Analyzer{
	Name:     "showcalls",
	Doc:      "report the retry model's call layers",
	Requires: []*analysis.Analyzer{retrymodel.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		res := pass.ResultOf[retrymodel.Analyzer].(*retrymodel.Result)
		for _, l := range res.Layers {
			if l.Kind == retrymodel.Loop {
				continue
			}
			pass.Reportf(l.Pos, "%s", describeCallLayer(pass.Fset, l))
		}
		return nil, nil
	},
}

func describeCallLayer(fset *token.FileSet, l *retrymodel.Layer) string {
	pol := l.Policy
	val := func(v retrymodel.Value, dur bool) string {
		switch {
		case !v.Set:
			return "-"
		case !v.Known:
			return "?"
		case dur:
			return durconst.Format(v.D)
		}
		return fmt.Sprint(v.N)
	}
	attempts := val(pol.Attempts, false)
	if pol.Attempts.Known && pol.Attempts.N == 0 {
		attempts = "unbounded"
	}
	var waits []string
	for _, w := range pol.Waits {
		waits = append(waits, durconst.Format(w))
	}
	w := strings.Join(waits, ",")
	if w == "" {
		w = "-"
	}
	client := "-"
	if l.ClientPos.IsValid() {
		client = retrymodel.Shorten(fset, l.ClientPos)
	}
	var fns []string
	for _, fn := range l.OpFuncs {
		fns = append(fns, fn.Name())
	}
	kind := map[retrymodel.Kind]string{retrymodel.Library: "library", retrymodel.Client: "client", retrymodel.SDK: "sdk"}[l.Kind]
	return fmt.Sprintf("%s kind=%s attempts=%s waits=%s jitter=%s deadline=%s cancel=%s retryafter=%s elapsed=%s assumed=%v client=%s classifier=%v perattempt=%s ctx=%v body=%v ops=%d opfuncs=%s notes=%s",
		l.Name, kind, attempts, w, pol.Jitter, pol.DeadlineAware, pol.WaitCancellable, pol.RetryAfter,
		val(pol.MaxElapsed, true), pol.Assumed, client, pol.Classifier != nil || pol.ClassifierFunc != nil,
		val(pol.PerAttempt, true), l.Context != nil, l.Body != nil, len(l.Ops), strings.Join(fns, ","), strings.Join(pol.Notes, "; "))
}

func TestCallLayers(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	testmod.Download(t, dir)
	// One load for all packages: the SDK and Kubernetes modules are big.
	analysistest.Run(t, dir, showCalls, "./sdks/xpkg/search",
		"./libs/backoffv3", "./libs/backoffv4", "./libs/backoffv5", "./libs/retrygo", "./libs/goretry", "./libs/k8s",
		"./libs/retryablehttp", "./libs/failsafe", "./libs/none", "./sdks/openai", "./sdks/anthropic", "./sdks/anthropicv2", "./sdks/aws")
}

// TestFailsafeV06 reads failsafe-go before v0.7 (its own module):
// failsafe.Get(fn, policies...) and retrypolicy.Builder[R]().
func TestFailsafeV06(t *testing.T) {
	testmod.Download(t, filepath.Join("testdata", "failsafe06"))
	dir, err := filepath.Abs(filepath.Join("testdata", "failsafe06"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, showCalls, ".")
}

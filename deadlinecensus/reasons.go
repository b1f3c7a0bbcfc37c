package deadlinecensus

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// A Reason says why a row's verdict is unknown and what would decide it;
// for a test whose deadline is below the need, what that means.
type Reason struct {
	About      []string // the verdicts it explains: retryCanStart, coversP99
	Code       string   // the kind of reason, as the summary counts it
	Text       string   // why, with names and positions
	Suggestion string   // what would decide it ("" when nothing would)
}

// Reason codes the summary counts.
const (
	codeP99         = "p99 unknown"
	codeAttempt     = "attempt time unknown"
	codeWait        = "first wait unknown"
	codeNeed        = "retry policy not fixed by code"
	codeUnfolded    = "deadline not a constant"
	codeMerged      = "deadlines merged from different paths"
	codeFromCaller  = "deadline from caller"
	codeTestNoRetry = "test cannot observe the retry"
)

// valuesFile is the file where a team writes down what the code cannot
// show (a p99, a config field's production value).
const valuesFile = ".retryvet.yml"

// reasons explains r's unknown verdicts (and a test's short deadline).
func reasons(pl *Pipeline, r *Row) []Reason {
	req := pl.Req
	fn := short(pl.Function)
	declare := fmt.Sprintf("declare //retryvet:p99 on %s or set it in %s", fn, valuesFile)
	var out []Reason
	add := func(about string, rs Reason) {
		for i := range out {
			if out[i].Code == rs.Code && out[i].Text == rs.Text {
				out[i].About = append(out[i].About, about)
				return
			}
		}
		rs.About = []string{about}
		out = append(out, rs)
	}
	if r.CanStart == retrymodel.Unknown {
		// Without a retry there is nothing to start: the pipeline's
		// derivation says so once, not every row.
		switch {
		case !req.Retry:
		case !req.Known:
			add("retryCanStart", Reason{Code: codeNeed, Text: "what the retry needs is unknown: " + req.Derivation, Suggestion: needFix(req, fn, declare)})
		case r.D.Kind == deadline.Known && req.AtLeast:
			// Only a bound of the need is known: say which part is not.
			code, sug := codeWait, "make the retry's first wait a constant (or set it in "+valuesFile+")"
			if req.P99 <= 0 && req.PerAttempt <= 0 && len(req.Waits) > 0 && !req.Guarded {
				code, sug = codeAttempt, declare
			}
			add("retryCanStart", Reason{Code: code,
				Text:       fmt.Sprintf("%s: the deadline %s covers at least %s, the part of the need the code fixes (%s)", code, r.D.String(), deadline.Format(req.Required), req.Derivation),
				Suggestion: sug})
		default:
			if rs, ok := deadlineReason(r); ok {
				add("retryCanStart", rs)
			}
		}
	}
	if r.P99 == retrymodel.Unknown {
		if req.P99 <= 0 {
			add("coversP99", Reason{Code: codeP99, Text: fmt.Sprintf("p99 unknown: no //retryvet:p99 on %s or on the call it retries", fn), Suggestion: declare})
		} else if rs, ok := deadlineReason(r); ok {
			add("coversP99", rs)
		}
	}
	if r.isTest() && r.CanStart == retrymodel.No {
		add("retryCanStart", Reason{Code: codeTestNoRetry,
			Text:       fmt.Sprintf("the test's deadline %s is below the %s the retry needs: the test cannot observe the retry (it passes whether or not the code waits)", r.D.String(), req.RequiredString()),
			Suggestion: "give the test a long deadline and a watchdog that fails early"})
	}
	return out
}

// needFix says what would fix a retry's need.
func needFix(req deadline.Requirement, fn, declare string) string {
	switch {
	case strings.Contains(req.Derivation, "reserve cannot be folded"):
		return "make the guard's reserve a constant, or set its production value in " + valuesFile
	case len(req.Waits) == 0:
		return "make the retry's waits constants (or set them in " + valuesFile + "), and " + declare
	}
	return declare
}

// deadlineReason explains a deadline the census could not decide.
func deadlineReason(r *Row) (Reason, bool) {
	src := ""
	if r.Source != "" {
		src = " (" + r.Source + ")"
	}
	switch r.D.Kind {
	case deadline.Unfolded:
		if s := r.D.Set; s != nil && s.Expr != "" {
			text := r.Note
			if text == "" {
				text = s.Call + "(" + s.Expr + ") cannot be folded to a constant"
			}
			sug := fmt.Sprintf("set the production value of %s in %s (or -set %s=DURATION for one run)", s.Expr, valuesFile, s.Expr)
			if !plainName.MatchString(s.Expr) {
				sug = fmt.Sprintf("give the duration a name the census can fold (a constant, or a config field with a default) or declare its production value in %s", valuesFile)
			}
			return Reason{Code: codeUnfolded, Text: text + src, Suggestion: sug}, true
		}
		return Reason{Code: codeMerged, Text: "the paths that reach the call set different deadlines" + src,
			Suggestion: "set the deadline once, after the paths meet, or give each path its own call"}, true
	case deadline.Unknown:
		what := r.D.What
		if what == "" {
			what = "a context the trace cannot follow"
		}
		code := what
		if strings.HasPrefix(what, "the result of ") {
			code = "the result of a call"
		}
		return Reason{Code: code, Text: "the trace stops at " + what + src, Suggestion: unknownFix(what)}, true
	case deadline.FromCaller:
		entry := short(r.Entry)
		return Reason{Code: codeFromCaller,
			Text:       fmt.Sprintf("the context is a parameter of %s, and nothing in the analysed packages calls it", entry),
			Suggestion: fmt.Sprintf("name the packages that call %s on the command line (retryvet census ./...); callers outside the module should be told the deadline it needs", entry)}, true
	}
	return Reason{}, false
}

func unknownFix(what string) string {
	switch {
	case strings.Contains(what, "struct field"), strings.Contains(what, "package-level"):
		return "pass the context as a parameter instead of keeping it (the census follows parameters, closures and helpers that return a context)"
	case strings.Contains(what, "several paths"), strings.Contains(what, "merged"), strings.Contains(what, "loop"):
		return "set the deadline once, after the paths meet, or give each path its own call"
	case strings.HasPrefix(what, "the result of"):
		return "derive the context from a parameter in a helper the census can read, or pass it as a parameter"
	}
	return "pass the context as a parameter from where its deadline is set"
}

// plainName is a name a values file can give a value: Timeout,
// cfg.Timeout, Default.Request.Timeout.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// noteShown reports whether r's note is worth printing: a reason that
// starts with it says the same and more.
func (r *Row) noteShown() bool {
	if r.Note == "" {
		return false
	}
	for _, rs := range r.Reasons {
		if strings.HasPrefix(rs.Text, r.Note) {
			return false
		}
	}
	return true
}

func (r *Row) isTest() bool { return r.Kind == "test" || r.TestFile }

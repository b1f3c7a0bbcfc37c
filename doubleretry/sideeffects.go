package doubleretry

// The side-effect checks (category repeated-write: a write every attempt
// makes again, here and at a retrying proxy route; category
// no-idempotency-key: a POST sent again with no key) are off by default.
// Issue 23 asks that a check be on by default only where its precision on
// real code is shown to be at least 0.9. Over the project's 151 real-world
// repositories and the unread modules chosen for the shape (breakers in
// retries, writes before a remote call in a retry, hand-built POSTs to
// APIs that take a key) they have made no finding, true or false, so
// their precision is not known. Until it is, a team turns them on:
// -sideeffects (the analyzer flag -doubleretry.sideeffects, the
// golangci-lint plugin's sideeffects setting).

// sideEffects is the flag's value; the retryvet command's -sideeffects
// sets the flag (Analyzer.Flags.Set(SideEffectsFlag, ...)).
var sideEffects bool

// SideEffectsFlag is the name of the analyzer flag that turns the checks on.
const SideEffectsFlag = "sideeffects"

func init() {
	Analyzer.Flags.BoolVar(&sideEffects, SideEffectsFlag, false,
		"report writes a retry repeats and POSTs it sends again with no idempotency key (off by default)")
}

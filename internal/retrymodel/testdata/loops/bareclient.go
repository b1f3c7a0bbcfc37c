package loops

import "net/http"

// A package-level client declared with no value and never assigned: the
// transport-fact export has no value to read (it crashed on chargebee-go's
// shape, `var httpClient *http.Client` set only by a setter it lacked).
var bareClient *http.Client

func bareClientSet() bool { return bareClient != nil }
